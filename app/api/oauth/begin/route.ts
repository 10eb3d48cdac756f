import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/oauth/begin');
export const dynamic = 'force-dynamic';
