import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PATCH, PUT } = routeHandlers('/scim/v2/Groups/{id}');
export const dynamic = 'force-dynamic';
