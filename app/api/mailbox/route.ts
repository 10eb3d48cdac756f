import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET } = routeHandlers('/mailbox');
export const dynamic = 'force-dynamic';
