import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/assistants/{assistantId}/slack-apps');
export const dynamic = 'force-dynamic';
