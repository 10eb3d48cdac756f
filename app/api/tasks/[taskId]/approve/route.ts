import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/tasks/{taskId}/approve');
export const dynamic = 'force-dynamic';
