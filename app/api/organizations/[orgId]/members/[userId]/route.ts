import { routeHandlers } from '@/server/route-handlers';

export const { DELETE } = routeHandlers('/organizations/{orgId}/members/{userId}');
export const dynamic = 'force-dynamic';
