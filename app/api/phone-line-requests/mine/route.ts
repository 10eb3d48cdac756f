import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/phone-line-requests/mine');
export const dynamic = 'force-dynamic';
