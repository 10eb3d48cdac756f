import { routeHandlers } from '@/server/route-handlers';

export const { DELETE, GET, PATCH } = routeHandlers('/model-tier-segments/{segmentId}');
export const dynamic = 'force-dynamic';
