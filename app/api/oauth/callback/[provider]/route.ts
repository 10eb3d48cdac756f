import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/callback/{provider}');
export const dynamic = 'force-dynamic';
