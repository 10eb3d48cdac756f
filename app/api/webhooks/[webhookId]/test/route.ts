import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/webhooks/{webhookId}/test');
export const dynamic = 'force-dynamic';
