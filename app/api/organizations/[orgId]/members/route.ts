import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/organizations/{orgId}/members');
export const dynamic = 'force-dynamic';
