import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/workspace/cleanup');
export const dynamic = 'force-dynamic';
