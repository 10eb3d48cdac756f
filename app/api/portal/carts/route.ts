import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/portal/carts');
export const dynamic = 'force-dynamic';
