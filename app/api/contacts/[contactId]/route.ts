import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE, GET, PUT } = routeHandlers('/contacts/{contactId}');
export const dynamic = 'force-dynamic';
