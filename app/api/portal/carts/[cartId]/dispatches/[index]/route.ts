import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, PATCH } = routeHandlers('/portal/carts/{cartId}/dispatches/{index}');
export const dynamic = 'force-dynamic';
