import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/slack/interactivity/{appId}');
export const dynamic = 'force-dynamic';
