import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/channels/twilio/voice');
export const dynamic = 'force-dynamic';
