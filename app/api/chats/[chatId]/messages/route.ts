import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/chats/{chatId}/messages');
export const dynamic = 'force-dynamic';
