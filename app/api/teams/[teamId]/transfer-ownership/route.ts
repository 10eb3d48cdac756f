import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/teams/{teamId}/transfer-ownership');
export const dynamic = 'force-dynamic';
