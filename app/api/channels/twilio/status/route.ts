import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/channels/twilio/status');
export const dynamic = 'force-dynamic';
