import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/tenants/{tenantId}/blocks');
export const dynamic = 'force-dynamic';
