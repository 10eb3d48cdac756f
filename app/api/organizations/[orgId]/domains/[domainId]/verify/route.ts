import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/organizations/{orgId}/domains/{domainId}/verify');
export const dynamic = 'force-dynamic';
