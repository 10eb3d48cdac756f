import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/memories/search');
export const dynamic = 'force-dynamic';
