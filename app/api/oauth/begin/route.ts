import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/begin');
export const dynamic = 'force-dynamic';
