import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PUT } = routeHandlers('/memories/{memoryId}');
export const dynamic = 'force-dynamic';
