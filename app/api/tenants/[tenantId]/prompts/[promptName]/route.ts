import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE, GET, PATCH } = routeHandlers('/tenants/{tenantId}/prompts/{promptName}');
export const dynamic = 'force-dynamic';
