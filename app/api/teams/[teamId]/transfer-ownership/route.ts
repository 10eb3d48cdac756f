import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/teams/{teamId}/transfer-ownership');
export const dynamic = 'force-dynamic';
