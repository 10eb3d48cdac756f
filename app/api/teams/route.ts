import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/teams');
export const dynamic = 'force-dynamic';
