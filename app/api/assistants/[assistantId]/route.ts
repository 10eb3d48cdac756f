import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PUT } = routeHandlers('/assistants/{assistantId}');
export const dynamic = 'force-dynamic';
