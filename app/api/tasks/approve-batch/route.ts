import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/tasks/approve-batch');
export const dynamic = 'force-dynamic';
