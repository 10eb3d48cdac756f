import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/phone-line-requests');
export const dynamic = 'force-dynamic';
