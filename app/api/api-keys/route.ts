import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/api-keys');
export const dynamic = 'force-dynamic';
