import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/teams/{teamId}/members');
export const dynamic = 'force-dynamic';
