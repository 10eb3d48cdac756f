import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/oauth/callback/{provider}');
export const dynamic = 'force-dynamic';
