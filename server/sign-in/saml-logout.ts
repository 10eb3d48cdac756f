import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { organizations, type AccountRow } from '@/db/schema';
import { samlFor } from './saml-client';
import { spCredentials } from './sp-credentials';
import { ssoConfigOf, ssoUsable } from './sso-config';

/**
 * /sso/saml/slo: a signed LogoutRequest from one of the account's IdPs ends the session and is
 * answered with a LogoutResponse; a LogoutResponse (or no SAML message: a local sign-out) ends it too.
 * Returns where to send the browser; the caller clears the session cookie.
 */
export async function singleLogout(db: Db, account: AccountRow, origin: string, method: string, query: URLSearchParams, form: URLSearchParams | null): Promise<string> {
  const params = method === 'GET' ? query : (form ?? new URLSearchParams());
  const message = params.get('SAMLRequest') ?? params.get('SAMLResponse');
  if (!message) return '/sign-in';
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
      const result =
        method === 'GET'
          ? await saml.validateRedirectAsync(container, query.toString())
          : params.has('SAMLRequest')
            ? await saml.validatePostRequestAsync(container)
            : await saml.validatePostResponseAsync(container);
      if (params.has('SAMLRequest') && result.profile) return await saml.getLogoutResponseUrlAsync(result.profile, params.get('RelayState') ?? '', {}, true);
      return '/sign-in';
    } catch {
      // Not this organization's IdP (or not valid): try the next one.
    }
  }
  return '/sign-in';
}
