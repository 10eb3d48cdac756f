import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/workspace/snapshots');
export const dynamic = 'force-dynamic';
