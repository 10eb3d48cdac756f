import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/calendars');
export const dynamic = 'force-dynamic';
