import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE } = routeHandlers('/organizations/{orgId}/members/{userId}');
export const dynamic = 'force-dynamic';
