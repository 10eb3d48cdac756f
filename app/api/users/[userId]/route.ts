import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PUT } = routeHandlers('/users/{userId}');
export const dynamic = 'force-dynamic';
