import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/workspace/handoff/{handoffId}/defer');
export const dynamic = 'force-dynamic';
