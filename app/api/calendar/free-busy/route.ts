import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/calendar/free-busy');
export const dynamic = 'force-dynamic';
