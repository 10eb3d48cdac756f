import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/mailbox/connect');
export const dynamic = 'force-dynamic';
