import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/workspace/handoff/resolve');
export const dynamic = 'force-dynamic';
