import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/contacts/bulk-import');
export const dynamic = 'force-dynamic';
