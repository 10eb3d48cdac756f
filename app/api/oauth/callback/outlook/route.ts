import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/callback/outlook');
export const dynamic = 'force-dynamic';
