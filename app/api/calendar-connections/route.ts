import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/calendar-connections');
export const dynamic = 'force-dynamic';
