import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/workspace/handoff/{handoffId}/decline');
export const dynamic = 'force-dynamic';
