import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/teams/{teamId}/join-requests');
export const dynamic = 'force-dynamic';
