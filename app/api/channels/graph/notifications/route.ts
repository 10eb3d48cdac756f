import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/channels/graph/notifications');
export const dynamic = 'force-dynamic';
