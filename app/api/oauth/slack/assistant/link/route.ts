import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/slack/assistant/link');
export const dynamic = 'force-dynamic';
