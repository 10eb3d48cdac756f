import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/budgets');
export const dynamic = 'force-dynamic';
