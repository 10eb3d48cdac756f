import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE } = routeHandlers('/api-keys/{keyId}');
export const dynamic = 'force-dynamic';
