import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/tasks/{taskId}/usage');
export const dynamic = 'force-dynamic';
