import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/workspace/handoff/{handoffId}/session');
export const dynamic = 'force-dynamic';
