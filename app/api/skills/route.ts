import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/skills');
export const dynamic = 'force-dynamic';
