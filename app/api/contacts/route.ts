import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/contacts');
export const dynamic = 'force-dynamic';
