import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE, GET, PATCH } = routeHandlers('/tenants/{tenantId}/blocks/{blockName}');
export const dynamic = 'force-dynamic';
