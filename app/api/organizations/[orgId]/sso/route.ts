import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE, PUT } = routeHandlers('/organizations/{orgId}/sso');
export const dynamic = 'force-dynamic';
