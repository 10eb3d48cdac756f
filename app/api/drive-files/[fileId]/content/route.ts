import { routeHandlers } from '@/server/route-handlers';

export const { PUT } = routeHandlers('/drive-files/{fileId}/content');
export const dynamic = 'force-dynamic';
