import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/identifiers/{identifierId}/link');
export const dynamic = 'force-dynamic';
