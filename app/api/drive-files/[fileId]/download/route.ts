import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/drive-files/{fileId}/download');
export const dynamic = 'force-dynamic';
