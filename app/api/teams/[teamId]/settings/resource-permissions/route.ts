import { routeHandlers } from '@/server/http/next-routes';

export const { GET, PATCH } = routeHandlers('/teams/{teamId}/settings/resource-permissions');
export const dynamic = 'force-dynamic';
