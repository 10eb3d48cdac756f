import { routeHandlers } from '@/server/route-handlers';

export const { DELETE } = routeHandlers('/users/{userId}/preferences/supervision/exceptions/{exceptionId}');
export const dynamic = 'force-dynamic';
