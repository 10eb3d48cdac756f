import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/calendar/authorize');
export const dynamic = 'force-dynamic';
