import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/tenants/{tenantId}/traces');
export const dynamic = 'force-dynamic';
