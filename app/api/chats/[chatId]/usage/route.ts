import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/chats/{chatId}/usage');
export const dynamic = 'force-dynamic';
