import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/skills/{skillId}/oauth/start');
export const dynamic = 'force-dynamic';
