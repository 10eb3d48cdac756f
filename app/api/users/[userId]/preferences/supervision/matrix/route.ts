import { routeHandlers } from '@/server/route-handlers';

export const { GET, PATCH } = routeHandlers('/users/{userId}/preferences/supervision/matrix');
export const dynamic = 'force-dynamic';
