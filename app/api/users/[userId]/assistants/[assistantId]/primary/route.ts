import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/users/{userId}/assistants/{assistantId}/primary');
export const dynamic = 'force-dynamic';
