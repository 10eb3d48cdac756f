import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PUT } = routeHandlers('/organizations/{orgId}');
export const dynamic = 'force-dynamic';
