import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/drive-files/upload');
export const dynamic = 'force-dynamic';
