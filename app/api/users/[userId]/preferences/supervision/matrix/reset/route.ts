import { routeHandlers } from '@/server/route-handlers';

export const { PUT } = routeHandlers('/users/{userId}/preferences/supervision/matrix/reset');
export const dynamic = 'force-dynamic';
