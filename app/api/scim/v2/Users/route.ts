import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/scim/v2/Users');
export const dynamic = 'force-dynamic';
