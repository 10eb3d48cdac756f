import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/budgets/{budgetId}/top-up');
export const dynamic = 'force-dynamic';
