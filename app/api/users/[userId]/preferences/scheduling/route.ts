import { routeHandlers } from '@/server/http/next-routes';

export const { GET, PUT } = routeHandlers('/users/{userId}/preferences/scheduling');
export const dynamic = 'force-dynamic';
