import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/scim/v2/Users');
export const dynamic = 'force-dynamic';
