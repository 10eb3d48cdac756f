import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/users');
export const dynamic = 'force-dynamic';
