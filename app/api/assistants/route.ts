import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/assistants');
export const dynamic = 'force-dynamic';
