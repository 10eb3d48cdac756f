import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/calendars/push/microsoft');
export const dynamic = 'force-dynamic';
