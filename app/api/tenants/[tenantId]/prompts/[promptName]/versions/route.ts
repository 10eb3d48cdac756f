import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/tenants/{tenantId}/prompts/{promptName}/versions');
export const dynamic = 'force-dynamic';
