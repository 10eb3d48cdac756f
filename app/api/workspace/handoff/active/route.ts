import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/workspace/handoff/active');
export const dynamic = 'force-dynamic';
