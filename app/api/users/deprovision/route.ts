import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/users/deprovision');
export const dynamic = 'force-dynamic';
