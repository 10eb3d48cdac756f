import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PATCH } = routeHandlers('/budgets/{budgetId}');
export const dynamic = 'force-dynamic';
