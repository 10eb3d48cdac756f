import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/identifiers/{identifierId}/link');
export const dynamic = 'force-dynamic';
