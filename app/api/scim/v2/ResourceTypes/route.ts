import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/scim/v2/ResourceTypes');
export const dynamic = 'force-dynamic';
