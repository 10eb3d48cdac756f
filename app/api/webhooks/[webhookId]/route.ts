import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PATCH } = routeHandlers('/webhooks/{webhookId}');
export const dynamic = 'force-dynamic';
