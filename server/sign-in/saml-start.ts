import type { Db } from '@/db/client';
import type { OrganizationRow } from '@/db/schema';
import { badRequest } from '@/server/http/errors';
import { samlFor } from './saml-client';
import { spCredentials } from '@/server/hosted/sp-credentials';
import { ssoConfigOf, ssoUsable } from './sso-config';

const PROBE = 'https://return-to.invalid';

/**
 * Where to send the browser after signing in: only a path on the hosted app itself, else `/`.
 * Browsers drop tabs and newlines and read `\` as `/` before resolving a Location, so `/\t/evil`
 * would become `//evil`: such characters are refused outright, and what remains must resolve
 * against a fixed origin to that same origin. The value is returned as given (its resolved
 * form could itself start with `//`).
 */
export function safeReturnTo(v: unknown): string {
  if (typeof v !== 'string' || !v.startsWith('/') || v.length > 2000) return '/';
  if (/[\u0000-\u0020\u007f\\]/.test(v)) return '/';
  try {
    return new URL(v, PROBE).origin === PROBE ? v : '/';
  } catch {
    return '/';
  }
}

/** Starts SP-initiated sign-in: stores the request id (answerable for 10 minutes) and returns the IdP URL to send the browser to. */
export async function startSamlSignIn(db: Db, org: OrganizationRow, origin: string, returnTo?: string) {
  const config = ssoConfigOf(org);
  if (!ssoUsable(config)) throw badRequest('SSO is not enabled for this organization');
  const saml = samlFor(db, { accountId: org.accountId, organizationId: org.id, origin, config, sp: await spCredentials(db), returnTo: safeReturnTo(returnTo) });
  const redirectUrl = await saml.getAuthorizeUrlAsync('', new URL(origin).host, {});
  return { redirectUrl };
}
