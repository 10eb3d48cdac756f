import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/drive-files/upload');
export const dynamic = 'force-dynamic';
