import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/tasks/{taskId}/decline');
export const dynamic = 'force-dynamic';
