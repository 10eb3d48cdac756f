import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/memories');
export const dynamic = 'force-dynamic';
