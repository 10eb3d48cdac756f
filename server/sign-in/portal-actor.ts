import { and, eq } from 'drizzle-orm';
import { decode } from 'next-auth/jwt';
import type { Db } from '@/db/client';
import { users, type AccountRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { accountBlocked } from '@/server/http/errors';
import { assertEmailSignInAllowed } from './sign-in-method';
import { sessionCookieName, sessionSecret, sessionVersionCurrent, type PortalToken } from './session';

function cookieValue(header: string | null, name: string) {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return null;
}

/** The signed-in person's session token, if the request carries a valid one for this account. */
export async function portalToken(db: Db, account: AccountRow, headers: Pick<Headers, 'get'>, secure: boolean): Promise<PortalToken | null> {
  const raw = cookieValue(headers.get('cookie'), sessionCookieName(secure));
  if (!raw) return null;
  try {
    const token = (await decode({ token: raw, secret: await sessionSecret(db) })) as Partial<PortalToken> | null;
    if (!token?.sub || token.accountId !== account.id) return null;
    return token as PortalToken;
  } catch {
    return null;
  }
}

/**
 * The actor of a hosted-app request: the session's user, acting for themselves exactly like a
 * user-scoped credential, so the same services apply the same rules. Null when signed out or the
 * session was revoked (its session version is behind the user's); 403 account_blocked when the
 * user is no longer active.
 */
export async function portalActor(db: Db, account: AccountRow, headers: Pick<Headers, 'get'>, secure: boolean): Promise<Actor | null> {
  const token = await portalToken(db, account, headers, secure);
  if (!token) return null;
  const [user] = await db.select().from(users).where(and(eq(users.id, token.sub), eq(users.accountId, account.id)));
  if (!user) return null;
  if (user.status !== 'active') throw accountBlocked();
  // A session from an email link ends once SSO is enforced for its user (said first: it tells them how to sign in now).
  if (token.method !== 'saml') await assertEmailSignInAllowed(db, account.id, user.email);
  if (!sessionVersionCurrent(token, user)) return null;
  // `account` was read by this same request (hostedSite): its kill switch and limits are current.
  return {
    accountId: account.id,
    credential: { kind: 'portal_session', method: token.method === 'saml' ? 'saml' : 'email' },
    level: 'user',
    organizationId: null,
    user,
    actingVia: 'portal_session',
    scopes: [],
    account: { killSwitch: account.killSwitch, rateLimitReads: account.rateLimitReads, rateLimitWrites: account.rateLimitWrites },
  };
}
