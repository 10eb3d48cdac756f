import { routeHandlers } from '@/server/route-handlers';

export const { POST } = routeHandlers('/sso/saml/acs');
export const dynamic = 'force-dynamic';
