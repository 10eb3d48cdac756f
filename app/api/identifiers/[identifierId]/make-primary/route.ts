import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/identifiers/{identifierId}/make-primary');
export const dynamic = 'force-dynamic';
