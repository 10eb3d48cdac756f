import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/webhooks/{webhookId}/deliveries');
export const dynamic = 'force-dynamic';
