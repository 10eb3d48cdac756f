import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/channels/sendblue/messages');
export const dynamic = 'force-dynamic';
