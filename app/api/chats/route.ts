import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/chats');
export const dynamic = 'force-dynamic';
