import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/audit-events');
export const dynamic = 'force-dynamic';
