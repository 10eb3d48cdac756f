import { routeHandlers } from '@/server/http/next-routes';

export const { GET, POST } = routeHandlers('/sso/saml/slo');
export const dynamic = 'force-dynamic';
