import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/identifiers/{identifierId}/verify');
export const dynamic = 'force-dynamic';
