import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/contacts');
export const dynamic = 'force-dynamic';
