import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/identifiers/{identifierId}/verification');
export const dynamic = 'force-dynamic';
