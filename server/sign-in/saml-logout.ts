import { and, eq, sql } from 'drizzle-orm';
import type { Profile } from '@node-saml/node-saml';
import type { Db } from '@/db/client';
import { organizations, type AccountRow } from '@/db/schema';
import { samlFor } from './saml-client';
import { spCredentials } from '@/server/hosted/sp-credentials';
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

/** Where /sso/saml/slo sends the browser, and whether the response ends the hosted-app session (clears its cookie). */
export type LogoutOutcome = { location: string; endSession: boolean };

export type LogoutMessage = { method: 'GET' | 'POST'; query: URLSearchParams; form: URLSearchParams | null; headers: Pick<Headers, 'get'> };

/**
 * A sign-out the person asked for on the hosted app: a POST from a page of this origin. Browsers
 * send Origin on every POST; Sec-Fetch-Site covers one that does not. A link or a form on another
 * site must not sign anyone out.
 */
function sameOriginPost(message: LogoutMessage, origin: string) {
  if (message.method !== 'POST') return false;
  const from = message.headers.get('origin');
  if (from !== null) return from === origin;
  return message.headers.get('sec-fetch-site') === 'same-origin';
}

/** Whether a verified IdP LogoutRequest is about the session this browser holds (or it holds none we can see). */
function namesSession(session: PortalToken | null, organizationId: string, profile: Profile) {
  if (!session) return true;
  return session.saml?.organizationId === organizationId && session.saml.nameID === profile.nameID;
}

/**
 * /sso/saml/slo. A signed LogoutRequest from one of the account's IdPs is answered with a
 * LogoutResponse and ends the session it names. The IdP's LogoutResponse to our own request
 * returns the browser to sign-in (the session already ended when the request was sent). Without
 * a SAML message, a same-origin POST is the person signing out, which for a SAML session continues
 * at the IdP; anything else (a cross-site link or form) changes nothing.
 */
export async function singleLogout(db: Db, account: AccountRow, origin: string, message: LogoutMessage, session: PortalToken | null): Promise<LogoutOutcome> {
  const params = message.method === 'GET' ? message.query : (message.form ?? new URLSearchParams());
  if (params.has('SAMLResponse')) return { location: '/sign-in', endSession: false };
  if (!params.has('SAMLRequest')) {
    if (!sameOriginPost(message, origin)) return { location: '/', endSession: false };
    return { location: session?.saml ? await idpLogoutUrl(db, account, origin, session.saml) : '/sign-in', endSession: true };
  }
  const orgs = await db
    .select()
    .from(organizations)
    .where(and(eq(organizations.accountId, account.id), sql`(${organizations.sso}->>'enabled')::boolean is true`));
  for (const org of orgs) {
    const config = ssoConfigOf(org);
    if (!ssoUsable(config)) continue;
    const saml = samlFor(db, { accountId: account.id, organizationId: org.id, origin, config, sp: await spCredentials(db) });
    let profile: Profile | null | undefined;
    try {
      const container = Object.fromEntries(params.entries());
      ({ profile } = message.method === 'GET' ? await saml.validateRedirectAsync(container, message.query.toString()) : await saml.validatePostRequestAsync(container));
    } catch {
      // Not this organization's IdP (or not valid): try the next one.
      continue;
    }
    if (!profile) continue;
    const location = await saml.getLogoutResponseUrlAsync(profile, params.get('RelayState') ?? '', {}, true);
    return { location, endSession: namesSession(session, org.id, profile) };
  }
  return { location: '/sign-in', endSession: false };
}
