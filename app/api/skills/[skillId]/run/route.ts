import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/skills/{skillId}/run');
export const dynamic = 'force-dynamic';
