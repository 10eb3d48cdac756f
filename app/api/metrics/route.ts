import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/metrics');
export const dynamic = 'force-dynamic';
