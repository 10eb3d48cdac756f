import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/slack-apps/{appId}');
export const dynamic = 'force-dynamic';
