import { routeHandlers } from '@/server/route-handlers';

export const { GET, POST } = routeHandlers('/sso/saml/slo');
export const dynamic = 'force-dynamic';
