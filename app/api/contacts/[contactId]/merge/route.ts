import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/contacts/{contactId}/merge');
export const dynamic = 'force-dynamic';
