import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/teams/{teamId}/join-requests/{requestId}/decline');
export const dynamic = 'force-dynamic';
