import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/api-keys/{keyId}/revoke');
export const dynamic = 'force-dynamic';
