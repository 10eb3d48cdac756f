import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/workspace/profile');
export const dynamic = 'force-dynamic';
