import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/tasks/{taskId}/mark-done');
export const dynamic = 'force-dynamic';
