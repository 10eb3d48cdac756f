import { routeHandlers } from '@/server/route-handlers';

export const { DELETE } = routeHandlers('/teams/{teamId}/join-requests/{requestId}');
export const dynamic = 'force-dynamic';
