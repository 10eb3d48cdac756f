import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/organizations/{orgId}/domains');
export const dynamic = 'force-dynamic';
