import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/organizations');
export const dynamic = 'force-dynamic';
