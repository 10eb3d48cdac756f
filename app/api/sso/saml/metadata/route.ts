import { routeHandlers } from '@/server/http/next-routes';

export const { GET } = routeHandlers('/sso/saml/metadata');
export const dynamic = 'force-dynamic';
