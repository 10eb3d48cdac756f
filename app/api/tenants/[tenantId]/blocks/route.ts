import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/tenants/{tenantId}/blocks');
export const dynamic = 'force-dynamic';
