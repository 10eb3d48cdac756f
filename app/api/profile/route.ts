import { routeHandlers } from '@/server/route-handlers';

export const { GET, PATCH } = routeHandlers('/profile');
export const dynamic = 'force-dynamic';
