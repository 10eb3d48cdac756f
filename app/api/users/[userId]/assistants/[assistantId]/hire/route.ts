import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/users/{userId}/assistants/{assistantId}/hire');
export const dynamic = 'force-dynamic';
