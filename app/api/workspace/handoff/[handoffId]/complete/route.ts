import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/workspace/handoff/{handoffId}/complete');
export const dynamic = 'force-dynamic';
