import { and, eq, sql } from 'drizzle-orm';
import type { Profile } from '@node-saml/node-saml';
import type { Db } from '@/db/client';
import { organizations, type AccountRow } from '@/db/schema';
import { samlFor } from './saml-client';
import { spCredentials } from './sp-credentials';
import type { PortalToken, SamlSession } from './session';
import { ssoConfigOf, ssoUsable } from './sso-config';

/**
 * Signing out of a SAML session also signs out at the IdP: a signed LogoutRequest naming the
 * session, sent to the IdP's logout URL; the IdP answers at /sso/saml/slo with a LogoutResponse.
 */
async function idpLogoutUrl(db: Db, account: AccountRow, origin: string, s: SamlSession): Promise<string> {
  const [org] = await db.select().from(organizations).where(and(eq(organizations.id, s.organizationId), eq(organizations.accountId, account.id)));
  const config = org ? ssoConfigOf(org) : null;
  // Only an IdP logout URL the admin set (or its metadata named) is used: the sign-on URL is not one.
  if (!org || !ssoUsable(config) || !config.saml.logoutUrl) return '/sign-in';
  const saml = samlFor(db, { accountId: account.id, organizationId: org.id, origin, config, sp: await spCredentials(db) });
  const profile = { issuer: config.saml.issuer ?? '', nameID: s.nameID, nameIDFormat: s.nameIDFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress', sessionIndex: s.sessionIndex ?? undefined };
  return saml.getLogoutUrlAsync(profile as Profile, '', {});
}

/**
 * /sso/saml/slo: a signed LogoutRequest from one of the account's IdPs ends the session and is
 * answered with a LogoutResponse; a visit without a SAML message is a sign-out, which for a SAML
 * session continues at the IdP; the IdP's LogoutResponse brings the browser back to sign-in.
 * Returns where to send the browser; the caller clears the session cookie.
 */
export async function singleLogout(
  db: Db,
  account: AccountRow,
  origin: string,
  method: string,
  query: URLSearchParams,
  form: URLSearchParams | null,
  session: PortalToken | null,
): Promise<string> {
  const params = method === 'GET' ? query : (form ?? new URLSearchParams());
  // The IdP's answer to our LogoutRequest: the Steward session was already ended when the request was sent.
  if (params.has('SAMLResponse')) return '/sign-in';
  if (!params.has('SAMLRequest')) return session?.saml ? await idpLogoutUrl(db, account, origin, session.saml) : '/sign-in';
  const orgs = await db
    .select()
    .from(organizations)
    .where(and(eq(organizations.accountId, account.id), sql`(${organizations.sso}->>'enabled')::boolean is true`));
  for (const org of orgs) {
    const config = ssoConfigOf(org);
    if (!ssoUsable(config)) continue;
    const saml = samlFor(db, { accountId: account.id, organizationId: org.id, origin, config, sp: await spCredentials(db) });
    try {
      const container = Object.fromEntries(params.entries());
      const result = method === 'GET' ? await saml.validateRedirectAsync(container, query.toString()) : await saml.validatePostRequestAsync(container);
      if (result.profile) return await saml.getLogoutResponseUrlAsync(result.profile, params.get('RelayState') ?? '', {}, true);
    } catch {
      // Not this organization's IdP (or not valid): try the next one.
    }
  }
  return '/sign-in';
}
