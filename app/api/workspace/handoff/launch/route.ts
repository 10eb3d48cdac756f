import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/workspace/handoff/launch');
export const dynamic = 'force-dynamic';
