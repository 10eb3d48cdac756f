import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/oauth/slack/assistant/link');
export const dynamic = 'force-dynamic';
