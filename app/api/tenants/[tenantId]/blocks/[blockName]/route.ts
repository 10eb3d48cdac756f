import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PATCH } = routeHandlers('/tenants/{tenantId}/blocks/{blockName}');
export const dynamic = 'force-dynamic';
