import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/contacts/{contactId}/relationships');
export const dynamic = 'force-dynamic';
