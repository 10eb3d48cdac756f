import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/calendar/events');
export const dynamic = 'force-dynamic';
