import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/organizations/{orgId}/domains/{domainId}/verify');
export const dynamic = 'force-dynamic';
