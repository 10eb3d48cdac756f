import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, PUT } = routeHandlers('/organizations/{orgId}/sso');
export const dynamic = 'force-dynamic';
