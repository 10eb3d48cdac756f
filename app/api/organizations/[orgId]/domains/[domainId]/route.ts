import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE, PUT } = routeHandlers('/organizations/{orgId}/domains/{domainId}');
export const dynamic = 'force-dynamic';
