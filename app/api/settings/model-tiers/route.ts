import { routeHandlers } from '@/server/route-handlers';

export const { GET, PATCH } = routeHandlers('/settings/model-tiers');
export const dynamic = 'force-dynamic';
