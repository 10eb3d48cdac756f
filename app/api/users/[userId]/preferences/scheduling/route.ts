import { routeHandlers } from '@/server/route-handlers';

export const { GET, PUT } = routeHandlers('/users/{userId}/preferences/scheduling');
export const dynamic = 'force-dynamic';
