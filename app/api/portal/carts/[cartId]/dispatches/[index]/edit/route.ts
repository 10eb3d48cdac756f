import { routeHandlers } from '@/server/route-handlers';

export const { PATCH } = routeHandlers('/portal/carts/{cartId}/dispatches/{index}/edit');
export const dynamic = 'force-dynamic';
