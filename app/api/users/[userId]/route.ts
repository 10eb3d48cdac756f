import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/users/{userId}');
export const dynamic = 'force-dynamic';
