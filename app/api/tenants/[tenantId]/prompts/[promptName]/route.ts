import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PATCH } = routeHandlers('/tenants/{tenantId}/prompts/{promptName}');
export const dynamic = 'force-dynamic';
