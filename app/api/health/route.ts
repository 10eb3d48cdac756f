import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/health');
export const dynamic = 'force-dynamic';
