import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/teams/authorize');
export const dynamic = 'force-dynamic';
