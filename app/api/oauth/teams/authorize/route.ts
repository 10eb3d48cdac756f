import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/oauth/teams/authorize');
export const dynamic = 'force-dynamic';
