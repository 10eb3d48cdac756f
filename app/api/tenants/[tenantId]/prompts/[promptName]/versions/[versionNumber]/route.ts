import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/tenants/{tenantId}/prompts/{promptName}/versions/{versionNumber}');
export const dynamic = 'force-dynamic';
