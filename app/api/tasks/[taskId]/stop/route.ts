import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/tasks/{taskId}/stop');
export const dynamic = 'force-dynamic';
