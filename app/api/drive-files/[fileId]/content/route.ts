import { routeHandlers } from '@/server/route-handlers';

export const { GET, PUT } = routeHandlers('/drive-files/{fileId}/content');
export const dynamic = 'force-dynamic';
