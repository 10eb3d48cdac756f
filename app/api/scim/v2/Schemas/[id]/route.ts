import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/scim/v2/Schemas/{id}');
export const dynamic = 'force-dynamic';
