import type { Db } from '@/db/client';
import type { OrganizationRow } from '@/db/schema';
import { badRequest } from '@/server/http/errors';
import { samlFor } from './saml-client';
import { spCredentials } from './sp-credentials';
import { ssoConfigOf, ssoUsable } from './sso-config';

/** Only paths on the hosted domain: never an open redirect. */
export const safeReturnTo = (v: unknown) => (typeof v === 'string' && /^\/(?![/\\])/.test(v) ? v : '/');

/** Starts SP-initiated sign-in: stores the request id (answerable for 10 minutes) and returns the IdP URL to send the browser to. */
export async function startSamlSignIn(db: Db, org: OrganizationRow, origin: string, returnTo?: string) {
  const config = ssoConfigOf(org);
  if (!ssoUsable(config)) throw badRequest('SSO is not enabled for this organization');
  const saml = samlFor(db, { accountId: org.accountId, organizationId: org.id, origin, config, sp: await spCredentials(db), returnTo: safeReturnTo(returnTo) });
  const redirectUrl = await saml.getAuthorizeUrlAsync('', new URL(origin).host, {});
  return { redirectUrl };
}
