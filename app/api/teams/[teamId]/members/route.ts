import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/teams/{teamId}/members');
export const dynamic = 'force-dynamic';
