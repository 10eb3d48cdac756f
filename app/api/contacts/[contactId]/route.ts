import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PUT } = routeHandlers('/contacts/{contactId}');
export const dynamic = 'force-dynamic';
