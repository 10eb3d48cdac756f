import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/drive-files/{fileId}/confirm');
export const dynamic = 'force-dynamic';
