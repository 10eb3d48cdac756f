import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/users/provision');
export const dynamic = 'force-dynamic';
