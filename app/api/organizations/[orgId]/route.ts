import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE, GET, PUT } = routeHandlers('/organizations/{orgId}');
export const dynamic = 'force-dynamic';
