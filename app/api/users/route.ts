import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/users');
export const dynamic = 'force-dynamic';
