import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/portal/carts/{cartId}/dispatches/{index}/undo');
export const dynamic = 'force-dynamic';
