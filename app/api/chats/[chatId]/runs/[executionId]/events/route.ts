import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/chats/{chatId}/runs/{executionId}/events');
export const dynamic = 'force-dynamic';
