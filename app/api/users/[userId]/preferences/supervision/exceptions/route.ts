import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/users/{userId}/preferences/supervision/exceptions');
export const dynamic = 'force-dynamic';
