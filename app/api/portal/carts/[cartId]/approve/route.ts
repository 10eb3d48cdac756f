import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/portal/carts/{cartId}/approve');
export const dynamic = 'force-dynamic';
