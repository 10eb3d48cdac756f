import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/portal/carts/{cartId}');
export const dynamic = 'force-dynamic';
