import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE } = routeHandlers('/users/{userId}/assistants/{assistantId}');
export const dynamic = 'force-dynamic';
