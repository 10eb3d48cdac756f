import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/drive-files/{fileId}/download');
export const dynamic = 'force-dynamic';
