import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/users/provision');
export const dynamic = 'force-dynamic';
