import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, PUT } = routeHandlers('/organizations/{orgId}/domains/{domainId}');
export const dynamic = 'force-dynamic';
