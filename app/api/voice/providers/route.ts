import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/voice/providers');
export const dynamic = 'force-dynamic';
