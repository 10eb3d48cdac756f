import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/tenants/{tenantId}/prompts/{promptName}/versions/{versionNumber}');
export const dynamic = 'force-dynamic';
