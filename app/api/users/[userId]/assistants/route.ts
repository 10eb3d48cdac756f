import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/users/{userId}/assistants');
export const dynamic = 'force-dynamic';
