import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/channels/sendblue/status');
export const dynamic = 'force-dynamic';
