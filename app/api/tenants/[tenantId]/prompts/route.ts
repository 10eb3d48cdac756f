import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/tenants/{tenantId}/prompts');
export const dynamic = 'force-dynamic';
