import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, PUT } = routeHandlers('/teams/{teamId}/members/{memberId}');
export const dynamic = 'force-dynamic';
