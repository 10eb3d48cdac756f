import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PUT } = routeHandlers('/teams/{teamId}');
export const dynamic = 'force-dynamic';
