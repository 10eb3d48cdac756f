import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE, GET, PUT } = routeHandlers('/assistants/{assistantId}');
export const dynamic = 'force-dynamic';
