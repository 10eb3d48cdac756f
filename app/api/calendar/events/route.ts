import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/calendar/events');
export const dynamic = 'force-dynamic';
