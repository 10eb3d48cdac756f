import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/webhooks');
export const dynamic = 'force-dynamic';
