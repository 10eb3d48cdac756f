import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/users/{userId}/assistants/{assistantId}/primary');
export const dynamic = 'force-dynamic';
