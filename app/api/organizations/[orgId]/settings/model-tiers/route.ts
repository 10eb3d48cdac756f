import { routeHandlers } from '@/server/route-handlers';

export const { GET, PATCH } = routeHandlers('/organizations/{orgId}/settings/model-tiers');
export const dynamic = 'force-dynamic';
