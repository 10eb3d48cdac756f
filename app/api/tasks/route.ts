import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/tasks');
export const dynamic = 'force-dynamic';
