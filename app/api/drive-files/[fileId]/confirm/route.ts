import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/drive-files/{fileId}/confirm');
export const dynamic = 'force-dynamic';
