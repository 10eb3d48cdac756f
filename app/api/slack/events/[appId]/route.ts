import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/slack/events/{appId}');
export const dynamic = 'force-dynamic';
