import { routeHandlers } from '@/server/http/next-routes';

export const { PUT } = routeHandlers('/drive-files/{fileId}/content');
export const dynamic = 'force-dynamic';
