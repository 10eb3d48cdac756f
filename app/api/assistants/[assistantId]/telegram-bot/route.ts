import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PUT } = routeHandlers('/assistants/{assistantId}/telegram-bot');
export const dynamic = 'force-dynamic';
