import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/api-keys/{keyId}/revoke');
export const dynamic = 'force-dynamic';
