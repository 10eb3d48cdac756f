import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/skills/oauth/callback');
export const dynamic = 'force-dynamic';
