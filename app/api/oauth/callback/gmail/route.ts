import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/callback/gmail');
export const dynamic = 'force-dynamic';
