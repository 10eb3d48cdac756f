import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/oauth/mailbox/authorize');
export const dynamic = 'force-dynamic';
