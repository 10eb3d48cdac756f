import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/users/deprovision');
export const dynamic = 'force-dynamic';
