import { routeHandlers } from '@/server/route-handlers';

export const { DELETE } = routeHandlers('/identifiers/{identifierId}');
export const dynamic = 'force-dynamic';
