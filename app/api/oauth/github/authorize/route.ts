import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/github/authorize');
export const dynamic = 'force-dynamic';
