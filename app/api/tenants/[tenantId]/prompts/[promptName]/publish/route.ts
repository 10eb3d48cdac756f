import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/tenants/{tenantId}/prompts/{promptName}/publish');
export const dynamic = 'force-dynamic';
