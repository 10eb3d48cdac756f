import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/organizations/{orgId}/scim/token');
export const dynamic = 'force-dynamic';
