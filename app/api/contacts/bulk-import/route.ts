import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/contacts/bulk-import');
export const dynamic = 'force-dynamic';
