import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/oauth/slack/assistant/authorize');
export const dynamic = 'force-dynamic';
