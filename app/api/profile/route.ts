import { routeHandlers } from '@/server/http/next-routes';

export const { GET, PATCH } = routeHandlers('/profile');
export const dynamic = 'force-dynamic';
