import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/identifiers/{identifierId}/make-primary');
export const dynamic = 'force-dynamic';
