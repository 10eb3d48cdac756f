import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/identifiers');
export const dynamic = 'force-dynamic';
