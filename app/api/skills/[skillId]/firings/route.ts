import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/skills/{skillId}/firings');
export const dynamic = 'force-dynamic';
