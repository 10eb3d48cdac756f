import { routeHandlers } from '@/server/http/next-routes';

export const { GET, PATCH } = routeHandlers('/organizations/{orgId}/settings/model-tiers');
export const dynamic = 'force-dynamic';
