import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/memories');
export const dynamic = 'force-dynamic';
