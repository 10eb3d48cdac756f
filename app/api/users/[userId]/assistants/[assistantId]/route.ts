import { routeHandlers } from '@/server/route-handlers';

export const { DELETE } = routeHandlers('/users/{userId}/assistants/{assistantId}');
export const dynamic = 'force-dynamic';
