import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/users/{userId}/assistants');
export const dynamic = 'force-dynamic';
