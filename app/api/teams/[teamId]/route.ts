import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE, GET, PUT } = routeHandlers('/teams/{teamId}');
export const dynamic = 'force-dynamic';
