import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE, PUT } = routeHandlers('/teams/{teamId}/members/{memberId}');
export const dynamic = 'force-dynamic';
