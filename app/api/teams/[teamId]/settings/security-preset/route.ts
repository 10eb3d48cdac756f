import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/teams/{teamId}/settings/security-preset');
export const dynamic = 'force-dynamic';
