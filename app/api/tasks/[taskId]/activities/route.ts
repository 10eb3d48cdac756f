import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/tasks/{taskId}/activities');
export const dynamic = 'force-dynamic';
