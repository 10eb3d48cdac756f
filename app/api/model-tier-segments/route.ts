import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/model-tier-segments');
export const dynamic = 'force-dynamic';
