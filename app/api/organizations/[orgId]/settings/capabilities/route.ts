import { routeHandlers } from '@/server/route-handlers';

export const { GET, PATCH } = routeHandlers('/organizations/{orgId}/settings/capabilities');
export const dynamic = 'force-dynamic';
