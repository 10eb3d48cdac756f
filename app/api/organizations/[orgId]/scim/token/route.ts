import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/organizations/{orgId}/scim/token');
export const dynamic = 'force-dynamic';
