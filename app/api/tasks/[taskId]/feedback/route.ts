import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/tasks/{taskId}/feedback');
export const dynamic = 'force-dynamic';
