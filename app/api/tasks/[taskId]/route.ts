import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PUT } = routeHandlers('/tasks/{taskId}');
export const dynamic = 'force-dynamic';
