import { routeHandlers } from '@/server/route-handlers';

export const { GET, PATCH } = routeHandlers('/settings/capabilities');
export const dynamic = 'force-dynamic';
