import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { Db } from '@/db/client';
import { spValues } from '@/server/hosted/saml-metadata';
import { parseCertificates } from '@/server/organizations/certificates';
import { REQUEST_TTL_MS, SamlRequestStore } from './saml-store';
import type { SpCredentials } from '@/server/hosted/sp-credentials';
import type { SsoConfig } from './sso-config';

/** Clock difference tolerated between the IdP and Steward when checking validity windows. */
export const CLOCK_SKEW_MS = 30_000;

/**
 * node-saml configured for one organization on the hosted app's origin (decided by hostedSite, never
 * by this module): the Assertion must be signed by the stored certificate and addressed to our
 * entity id; responses must answer a stored request unless IdP-initiated sign-in is allowed.
 * The Response around it may be unsigned: SAML requires signed assertions, not signed responses,
 * and Entra ID signs only the assertion by default. A signed Response does not excuse an
 * unsigned Assertion (wantAssertionsSigned).
 */
export function samlFor(db: Db, opts: { accountId: string; organizationId: string; origin: string; config: SsoConfig; sp: SpCredentials; returnTo?: string }) {
  const sp = spValues(opts.origin);
  const saml = opts.config.saml;
  return new SAML({
    entryPoint: saml.entryPoint ?? undefined,
    logoutUrl: saml.logoutUrl ?? saml.entryPoint ?? undefined,
    idpCert: parseCertificates(saml.certificate ?? '') ?? [],
    issuer: sp.entityId,
    audience: sp.entityId,
    callbackUrl: sp.acsUrl,
    logoutCallbackUrl: sp.sloUrl,
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    signatureAlgorithm: saml.signatureAlgorithm,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: saml.allowIdpInitiated ? ValidateInResponseTo.ifPresent : ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: new SamlRequestStore(db, { accountId: opts.accountId, organizationId: opts.organizationId, returnTo: opts.returnTo }),
    disableRequestedAuthnContext: true,
    // Requests Steward sends (AuthnRequest, LogoutResponse) are signed with the SP key from the metadata.
    privateKey: opts.sp.privateKey,
    publicCert: opts.sp.cert,
  });
}
