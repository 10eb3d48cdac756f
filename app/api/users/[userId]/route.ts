import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE, GET, PUT } = routeHandlers('/users/{userId}');
export const dynamic = 'force-dynamic';
