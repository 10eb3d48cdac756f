import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/assistants/generate');
export const dynamic = 'force-dynamic';
