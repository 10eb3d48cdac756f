import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/tenants/{tenantId}/traces/{traceId}');
export const dynamic = 'force-dynamic';
