import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/assistants');
export const dynamic = 'force-dynamic';
