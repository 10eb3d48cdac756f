import { routeHandlers } from '@/server/http/next-routes';

export const { DELETE } = routeHandlers('/identifiers/{identifierId}');
export const dynamic = 'force-dynamic';
