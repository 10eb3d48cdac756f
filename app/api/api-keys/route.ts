import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/api-keys');
export const dynamic = 'force-dynamic';
