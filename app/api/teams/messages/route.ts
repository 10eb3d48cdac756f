import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/teams/messages');
export const dynamic = 'force-dynamic';
