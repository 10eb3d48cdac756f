import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/identifiers');
export const dynamic = 'force-dynamic';
