import { routeHandlers } from '@/server/route-handlers';

export const { DELETE } = routeHandlers('/api-keys/{keyId}');
export const dynamic = 'force-dynamic';
