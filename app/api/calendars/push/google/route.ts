import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/calendars/push/google');
export const dynamic = 'force-dynamic';
