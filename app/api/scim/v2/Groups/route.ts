import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/scim/v2/Groups');
export const dynamic = 'force-dynamic';
