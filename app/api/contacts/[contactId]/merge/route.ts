import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/contacts/{contactId}/merge');
export const dynamic = 'force-dynamic';
