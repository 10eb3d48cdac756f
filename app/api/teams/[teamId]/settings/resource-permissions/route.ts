import { routeHandlers } from '@/server/route-handlers';

export const { GET, PATCH } = routeHandlers('/teams/{teamId}/settings/resource-permissions');
export const dynamic = 'force-dynamic';
