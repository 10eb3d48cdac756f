import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PATCH } = routeHandlers('/skills/{skillId}');
export const dynamic = 'force-dynamic';
