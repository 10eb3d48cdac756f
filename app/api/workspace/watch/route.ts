import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/workspace/watch');
export const dynamic = 'force-dynamic';
