import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/assistants/{assistantId}/slack-apps');
export const dynamic = 'force-dynamic';
