import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/ready');
export const dynamic = 'force-dynamic';
