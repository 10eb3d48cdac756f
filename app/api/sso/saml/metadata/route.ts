import { routeHandlers } from '@/server/route-handlers';

export const { GET } = routeHandlers('/sso/saml/metadata');
export const dynamic = 'force-dynamic';
