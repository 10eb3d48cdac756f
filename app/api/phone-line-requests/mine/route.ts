import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/phone-line-requests/mine');
export const dynamic = 'force-dynamic';
