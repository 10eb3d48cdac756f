import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/github/callback');
export const dynamic = 'force-dynamic';
