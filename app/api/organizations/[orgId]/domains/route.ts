import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/organizations/{orgId}/domains');
export const dynamic = 'force-dynamic';
