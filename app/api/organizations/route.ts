import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/organizations');
export const dynamic = 'force-dynamic';
