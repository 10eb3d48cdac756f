import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/tasks/{taskId}/process');
export const dynamic = 'force-dynamic';
