import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/tenants/{tenantId}/prompts');
export const dynamic = 'force-dynamic';
