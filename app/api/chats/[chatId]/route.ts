import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET } = routeHandlers('/chats/{chatId}');
export const dynamic = 'force-dynamic';
