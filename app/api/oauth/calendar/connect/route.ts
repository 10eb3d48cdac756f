import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/calendar/connect');
export const dynamic = 'force-dynamic';
