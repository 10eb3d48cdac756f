import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/tenants/{tenantId}/prompts/{promptName}/versions');
export const dynamic = 'force-dynamic';
