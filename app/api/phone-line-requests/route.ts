import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/phone-line-requests');
export const dynamic = 'force-dynamic';
