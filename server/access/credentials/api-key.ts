import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, apiKeys, users, type UserRow } from '@/db/schema';
import { BareRefusal, badRequest, unauthorized } from '@/server/http/errors';
import type { Actor } from '../actor';
import { API_KEY_PATTERN, hashSecret, sameHash } from '../keys';
import { userByEmail } from './act-as';
import type { Authenticator } from './authenticator';

/**
 * The per-request lookups as prepared statements, built once per database handle:
 * building a Drizzle query on every request costs more than running it.
 */
const prepared = new WeakMap<Db, ReturnType<typeof prepare>>();
function prepare(db: Db) {
  return {
    keyByHash: db
      .select({ key: apiKeys, account: { killSwitch: accounts.killSwitch, rateLimitReads: accounts.rateLimitReads, rateLimitWrites: accounts.rateLimitWrites }, user: users })
      .from(apiKeys)
      .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
      // A user key's user comes with the key: one round trip instead of two on every user-key request.
      .leftJoin(users, eq(users.id, apiKeys.userId))
      .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
      .limit(1)
      .prepare('auth_key_by_hash'),
  };
}
function statements(db: Db) {
  let s = prepared.get(db);
  if (!s) prepared.set(db, (s = prepare(db)));
  return s;
}

/** The spec's body for an unknown, revoked or expired API key. */
const invalidKey = () => new BareRefusal(401, { ok: false });

/** Only what the kernel needs of the account (kill switch, rate-limit overrides). */
export const pickAccount = (a: Actor['account']): Actor['account'] => ({ killSwitch: a.killSwitch, rateLimitReads: a.rateLimitReads, rateLimitWrites: a.rateLimitWrites });

/** `ak_live_` keys: account-wide, organization or user level, fixed at creation; only a SHA-256 hash is stored. */
export const apiKeyCredential: Authenticator<Actor> = {
  kind: 'api_key',
  matches: (token) => token.startsWith('ak_live_'),
  async authenticate(key, { db, lastUsed, headers }) {
    if (!API_KEY_PATTERN.test(key)) throw invalidKey();
    const hash = hashSecret(key);
    const [row] = await statements(db).keyByHash.execute({ hash });
    if (!row || !sameHash(row.key.keyHash, hash)) throw invalidKey();
    const now = new Date();
    if (row.key.status !== 'active') throw invalidKey();
    if (row.key.expiresAt && row.key.expiresAt <= now) throw invalidKey();
    const level = row.key.userId ? 'user' : row.key.organizationId ? 'organization' : 'account';
    // A user key whose user was deleted authenticates no one.
    const keyUser: UserRow | null = level === 'user' ? row.user : null;
    if (level === 'user' && !keyUser) throw invalidKey();
    lastUsed.touch(row.key.id, now);

    const base = {
      accountId: row.key.accountId,
      credential: { kind: 'api_key' as const, keyId: row.key.id },
      level,
      organizationId: row.key.organizationId,
      scopes: row.key.scopes,
      account: pickAccount(row.account),
    } satisfies Partial<Actor>;

    const userEmail = headers.get('x-user-email');
    if (level === 'user') {
      if (userEmail !== null) throw badRequest('X-User-Email cannot be sent with a user key: a user key always acts as its own user');
      return { ...base, user: keyUser, actingVia: 'user_key' };
    }
    if (userEmail === null) return { ...base, user: null, actingVia: null };
    const user = await userByEmail(db, row.key.accountId, userEmail);
    // An organization key acts only as users of its own organization.
    if (!user || (level === 'organization' && user.organizationId !== row.key.organizationId)) {
      throw unauthorized('X-User-Email matches no user in this account');
    }
    return { ...base, user, actingVia: 'x_user_email' };
  },
};
