import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/assistants/{assistantId}/telegram-bot/link');
export const dynamic = 'force-dynamic';
