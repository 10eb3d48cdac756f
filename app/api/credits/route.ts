import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/credits');
export const dynamic = 'force-dynamic';
