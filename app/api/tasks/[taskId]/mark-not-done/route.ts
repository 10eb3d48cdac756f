import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/tasks/{taskId}/mark-not-done');
export const dynamic = 'force-dynamic';
