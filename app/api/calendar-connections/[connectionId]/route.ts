import { routeHandlers } from '@/server/route-handlers';

export const { DELETE } = routeHandlers('/calendar-connections/{connectionId}');
export const dynamic = 'force-dynamic';
