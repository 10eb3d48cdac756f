import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/teams/{teamId}/settings/security-preset');
export const dynamic = 'force-dynamic';
