import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/users/{userId}/assistants/{assistantId}/hire');
export const dynamic = 'force-dynamic';
