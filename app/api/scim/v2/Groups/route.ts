import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/scim/v2/Groups');
export const dynamic = 'force-dynamic';
