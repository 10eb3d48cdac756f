import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/me');
export const dynamic = 'force-dynamic';
