import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, PATCH } = routeHandlers('/identifiers/{identifierId}');
export const dynamic = 'force-dynamic';
