import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/chats/{chatId}/process');
export const dynamic = 'force-dynamic';
