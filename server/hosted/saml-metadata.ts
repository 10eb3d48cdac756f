import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { defineEndpoint } from '@/server/http/endpoint';
import { spCredentials } from './sp-credentials';
import { hostedSite } from './accounts';

/** The service-provider values an organization registers in its IdP, all on the hosted domain. */
export function spValues(base: string) {
  return { entityId: `${base}/api/sso/saml/metadata`, acsUrl: `${base}/api/sso/saml/acs`, sloUrl: `${base}/api/sso/saml/slo` };
}

export async function spMetadata(db: Db, headers: Pick<Headers, 'get'>) {
  const { origin } = await hostedSite(db, headers);
  const sp = spValues(origin);
  const { privateKey, cert } = await spCredentials(db);
  const xml = generateServiceProviderMetadata({
    issuer: sp.entityId,
    privateKey,
    publicCerts: cert,
    callbackUrl: sp.acsUrl,
    logoutCallbackUrl: sp.sloUrl,
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    wantAssertionsSigned: true,
  });
  return new Response(xml, { status: 200, headers: { 'Content-Type': 'application/samlmetadata+xml; charset=utf-8' } });
}

export const samlEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/sso/saml/metadata',
    summary: 'SAML service-provider metadata of the hosted domain (entity id, ACS and SLO URLs)',
    tags: ['SSO'],
    auth: 'none',
    raw: true,
    response: z.unknown(),
    errors: [404],
    handle: ({ db, req }) => spMetadata(db, req.headers),
  }),
];
