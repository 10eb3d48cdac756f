import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/github/begin');
export const dynamic = 'force-dynamic';
