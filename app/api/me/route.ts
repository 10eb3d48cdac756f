import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/me');
export const dynamic = 'force-dynamic';
