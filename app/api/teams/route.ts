import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/teams');
export const dynamic = 'force-dynamic';
