import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/tenants/{tenantId}/prompts/{promptName}/publish');
export const dynamic = 'force-dynamic';
