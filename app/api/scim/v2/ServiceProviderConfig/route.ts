import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/scim/v2/ServiceProviderConfig');
export const dynamic = 'force-dynamic';
