import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/openapi.json');
export const dynamic = 'force-dynamic';
