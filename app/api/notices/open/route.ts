import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/notices/open');
export const dynamic = 'force-dynamic';
