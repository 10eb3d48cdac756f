import { routeHandlers } from '@/server/route-handlers';

export const { PUT } = routeHandlers('/slack-apps/{appId}/credentials');
export const dynamic = 'force-dynamic';
