import { eq, sql } from 'drizzle-orm';
import { accounts, organizations } from '@/db/schema';
import type { Authenticator } from '@/server/access/credentials/authenticator';
import { credentialLevel } from '@/server/access/credentials/authenticator';
import { hashSecret, sameHash } from '@/server/access/keys';
import { BareRefusal } from '@/server/http/errors';
import { requestHost } from '@/server/http/public-origin';
import { scimError } from './errors';
import type { ScimCaller } from './token';

declare module '@/server/access/credentials/levels' {
  interface CallerContexts {
    /** An organization's SCIM bearer token: the SCIM 2.0 endpoints. */
    scim: { scim: ScimCaller };
  }
}

/**
 * Every SCIM refusal is a bare 401 in SCIM's error format (identity providers read that, not ours),
 * with the challenge RFC 6750 §3 asks for: `error="invalid_token"` once a token was presented.
 */
const refusal = (presentedToken: boolean) =>
  new BareRefusal(401, scimError(401, 'A valid SCIM bearer token is required'), {
    'Content-Type': 'application/scim+json',
    'WWW-Authenticate': presentedToken ? 'Bearer realm="SCIM", error="invalid_token"' : 'Bearer realm="SCIM"',
  });

/** `scim_` + 64 hex, minted by an organization admin (token.ts); only its hash is stored. */
export const scimTokenCredential: Authenticator<ScimCaller> = {
  kind: 'scim_token',
  matches: (token) => /^scim_[0-9a-f]{64}$/i.test(token),
  /** Finds the organization whose SCIM token this is; anything else is a SCIM 401. */
  async authenticate(token, { db, headers }) {
    const hash = hashSecret(token);
    const [row] = await db
      .select({ org: organizations, account: accounts })
      .from(organizations)
      .innerJoin(accounts, eq(accounts.id, organizations.accountId))
      .where(sql`${organizations.scim}->>'tokenHash' = ${hash}`)
      .limit(1);
    if (!row || !sameHash(String(row.org.scim?.tokenHash), hash)) throw refusal(true);
    // On another account's hosted domain a token of this account is no token (hosts select accounts).
    const host = requestHost(headers) ?? '';
    if (host && row.account.hostedDomain !== host) {
      const [owner] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.hostedDomain, host));
      if (owner && owner.id !== row.account.id) throw refusal(true);
    }
    return { accountId: row.org.accountId, organizationId: row.org.id, account: { rateLimitReads: row.account.rateLimitReads, rateLimitWrites: row.account.rateLimitWrites } };
  },
};

/** Auth level `scim`: the SCIM token alone; the handler receives the organization as `scim`. */
export const scimLevel = credentialLevel({
  level: 'scim',
  kinds: [scimTokenCredential],
  refuse: (presented) => refusal(presented.header !== null),
  subject: (caller) => caller,
  admit: (scim) => ({ scim }),
});
