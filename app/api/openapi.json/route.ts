import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/openapi.json');
export const dynamic = 'force-dynamic';
