import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/slack/assistant/authorize');
export const dynamic = 'force-dynamic';
