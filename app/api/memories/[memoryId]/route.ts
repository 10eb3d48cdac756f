import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE, GET, PUT } = routeHandlers('/memories/{memoryId}');
export const dynamic = 'force-dynamic';
