import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/channels/{channel}/webhooks/{connectionId}');
export const dynamic = 'force-dynamic';
