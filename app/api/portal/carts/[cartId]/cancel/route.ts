import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/portal/carts/{cartId}/cancel');
export const dynamic = 'force-dynamic';
