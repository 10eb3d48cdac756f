import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/channels/twilio/messages');
export const dynamic = 'force-dynamic';
