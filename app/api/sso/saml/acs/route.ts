import { routeHandlers } from '@/server/http/next-routes';

export const { POST } = routeHandlers('/sso/saml/acs');
export const dynamic = 'force-dynamic';
