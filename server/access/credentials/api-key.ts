import { getTableColumns } from 'drizzle-orm';
import type pg from 'pg';
import type { Db } from '@/db/client';
import { users, type UserRow } from '@/db/schema';
import { BareRefusal, badRequest, unauthorized } from '@/server/http/errors';
import type { Actor } from '../actor';
import { API_KEY_PATTERN, hashSecret } from '../keys';
import { userByEmail } from './act-as';
import type { Authenticator } from './authenticator';

/**
 * The per-request lookup, as one named statement on the pool (prepared once per connection).
 * It reads only what authentication needs, as ONE json column: the driver's work per column
 * (describing it, choosing and running its parser; a text[] is parsed in JavaScript) was most of
 * what this statement cost beyond the round trip, and JSON.parse is native. A Drizzle query's own
 * per-call work was more still, so this hot statement is plain pg. A user key's user comes with
 * the key (mapped in userFromJson): one round trip, null for every other key.
 *
 * Only a key that opens something is a row: active, not expired, and (a user key) with its user.
 * Each of those refusals is the same 401, so the database decides them.
 */
const KEY_BY_HASH_TEXT = `SELECT json_build_array(k.id, k.account_id, k.organization_id, k.scopes, a.kill_switch, a.rate_limit_reads, a.rate_limit_writes, to_jsonb(u))
  FROM api_keys k JOIN accounts a ON a.id = k.account_id LEFT JOIN users u ON u.id = k.user_id
  WHERE k.key_hash = $1 AND k.status = 'active' AND (k.expires_at IS NULL OR k.expires_at > now())
    AND (k.user_id IS NULL OR u.id IS NOT NULL)
  LIMIT 1`;
/** [id, account_id, organization_id, scopes, kill_switch, rate_limit_reads, rate_limit_writes, user] */
type KeyRow = [string, string, string | null, string[], boolean, number | null, number | null, Record<string, unknown> | null];

/**
 * The statement's fixed parts live on a prototype and each call's config owns only its values:
 * the driver copies every config it is given property by property (pg's cloneQueryConfig), and
 * inherited properties are not copied, only the prototype is kept.
 */
const KEY_BY_HASH: pg.QueryConfig = Object.freeze({ name: 'auth_key_by_hash_v5', text: KEY_BY_HASH_TEXT, rowMode: 'array' }) as pg.QueryArrayConfig;

/** The key's row, or null. Not async: a promise chain of one step is all this costs per request. */
function keyByHash(pool: pg.Pool, hash: string): Promise<KeyRow | null> {
  const config = Object.create(KEY_BY_HASH) as pg.QueryArrayConfig;
  config.values = [hash];
  return pool.query<[KeyRow]>(config).then((r) => r.rows[0]?.[0] ?? null);
}

/** The users table's columns, by their database names, with how each reads its stored value. */
const USER_COLUMNS = Object.entries(getTableColumns(users)).map(([field, column]) => ({ field, name: column.name, read: (v: unknown) => column.mapFromDriverValue(v) }));

/** A user row from `to_jsonb(users)`: each column read as the driver's value would be (timestamps to Dates). */
function userFromJson(json: Record<string, unknown> | null): UserRow | null {
  if (!json) return null;
  const row: Record<string, unknown> = {};
  for (const c of USER_COLUMNS) {
    const v = json[c.name];
    row[c.field] = v === null || v === undefined ? null : c.read(v);
  }
  return row as UserRow;
}

/** The spec's body for an unknown, revoked or expired API key. */
const invalidKey = () => new BareRefusal(401, { ok: false });

/** Only what the kernel needs of the account (kill switch, rate-limit overrides). */
export const pickAccount = (a: Actor['account']): Actor['account'] => ({ killSwitch: a.killSwitch, rateLimitReads: a.rateLimitReads, rateLimitWrites: a.rateLimitWrites });

/** The caller a key row opens, built as one literal (a spread of a partial actor cost more per request). */
function actorOf(r: KeyRow, level: Actor['level'], user: UserRow | null, actingVia: Actor['actingVia']): Actor {
  return {
    accountId: r[1],
    credential: { kind: 'api_key', keyId: r[0] },
    level,
    organizationId: r[2],
    scopes: r[3],
    account: { killSwitch: r[4], rateLimitReads: r[5], rateLimitWrites: r[6] },
    user,
    actingVia,
  };
}

/** `ak_live_` keys: account-wide, organization or user level, fixed at creation; only a SHA-256 hash is stored. */
export const apiKeyCredential: Authenticator<Actor> = {
  kind: 'api_key',
  matches: (token) => token.startsWith('ak_live_'),
  async authenticate(key, { db, pool, lastUsed, headers }) {
    if (!API_KEY_PATTERN.test(key)) throw invalidKey();
    const hash = hashSecret(key);
    const r = await keyByHash(pool, hash);
    // The row was found by this very hash (key_hash = $1): comparing them again (or reading it back) would only cost time.
    if (!r) throw invalidKey();
    const keyId = r[0];
    const organizationId = r[2];
    // A user key's row always carries its user (the query drops one whose user was deleted).
    const keyUser: UserRow | null = userFromJson(r[7]);
    const level = keyUser ? 'user' : organizationId ? 'organization' : 'account';
    lastUsed.touch(keyId, new Date());

    const userEmail = headers.get('x-user-email');
    if (level === 'user') {
      if (userEmail !== null) throw badRequest('X-User-Email cannot be sent with a user key: a user key always acts as its own user');
      return actorOf(r, level, keyUser, 'user_key');
    }
    if (userEmail === null) return actorOf(r, level, null, null);
    const user = await userByEmail(db, r[1], userEmail);
    // An organization key acts only as users of its own organization.
    if (!user || (level === 'organization' && user.organizationId !== organizationId)) {
      throw unauthorized('X-User-Email matches no user in this account');
    }
    return actorOf(r, level, user, 'x_user_email');
  },
};
