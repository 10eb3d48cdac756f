import { eq, sql } from 'drizzle-orm';
import { decodeProtectedHeader, importSPKI, jwtVerify, type CryptoKey } from 'jose';
import type { Db } from '@/db/client';
import { accountCertificates, accounts, apiKeys, users, type UserRow } from '@/db/schema';
import { normalizeEmail, prepareVerifiedEmailLookup } from './verified-email';
import { BareRefusal, badRequest, unauthorized } from '@/server/http/errors';
import type { Actor } from './actor';
import { API_KEY_PATTERN, hashSecret, sameHash } from './keys';
import type { LastUsedTracker } from './last-used';

/**
 * The per-request lookups as prepared statements, built once per database handle:
 * building a Drizzle query on every request costs more than running it.
 */
const prepared = new WeakMap<Db, ReturnType<typeof prepare>>();
function prepare(db: Db) {
  return {
    keyByHash: db
      .select({ key: apiKeys, account: { killSwitch: accounts.killSwitch, rateLimitReads: accounts.rateLimitReads, rateLimitWrites: accounts.rateLimitWrites } })
      .from(apiKeys)
      .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
      .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
      .limit(1)
      .prepare('auth_key_by_hash'),
    userById: db.select().from(users).where(eq(users.id, sql.placeholder('id'))).limit(1).prepare('auth_user_by_id'),
    // The one verified-email rule (./verified-email.ts), prepared.
    userByVerifiedEmail: prepareVerifiedEmailLookup(db, 'auth_user_by_verified_email'),
  };
}
function statements(db: Db) {
  let s = prepared.get(db);
  if (!s) prepared.set(db, (s = prepare(db)));
  return s;
}

/** The spec's body for an unknown, revoked or expired API key. */
const invalidKey = () => new BareRefusal(401, { ok: false });

export type AuthDeps = { db: Db; lastUsed: LastUsedTracker; now?: () => Date };

export async function authenticate(deps: AuthDeps, headers: Pick<Headers, "get">): Promise<Actor> {
  const header = headers.get('authorization');
  if (!header) throw unauthorized('Missing credential: send Authorization: Bearer <API key or certificate token>');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Malformed Authorization header: expected "Bearer <credential>"');
  const credential = match[1];
  const userEmail = headers.get('x-user-email');
  if (credential.startsWith('ak_live_')) return apiKeyActor(deps, credential, userEmail);
  if (credential.startsWith('sk_live_')) throw unauthorized('Service keys work only on the tenant prompt API (/tenants/{tenantId}/...)');
  if (credential.split('.').length === 3) return certificateActor(deps, credential, userEmail);
  throw unauthorized('Unrecognised credential: expected an ak_live_ API key or an RS256 certificate token');
}

async function apiKeyActor(deps: AuthDeps, key: string, userEmail: string | null): Promise<Actor> {
  if (!API_KEY_PATTERN.test(key)) throw invalidKey();
  const hash = hashSecret(key);
  const [row] = await statements(deps.db).keyByHash.execute({ hash });
  if (!row || !sameHash(row.key.keyHash, hash)) throw invalidKey();
  const now = deps.now?.() ?? new Date();
  if (row.key.status !== 'active') throw invalidKey();
  if (row.key.expiresAt && row.key.expiresAt <= now) throw invalidKey();
  const level = row.key.userId ? 'user' : row.key.organizationId ? 'organization' : 'account';
  // A user key whose user was deleted authenticates no one.
  const keyUser = level === 'user' ? await userById(deps.db, row.key.userId!) : null;
  if (level === 'user' && !keyUser) throw invalidKey();
  deps.lastUsed.touch(row.key.id, now);

  const base = {
    accountId: row.key.accountId,
    credential: { kind: 'api_key' as const, keyId: row.key.id },
    level,
    organizationId: row.key.organizationId,
    scopes: row.key.scopes,
    account: pickAccount(row.account),
  } satisfies Partial<Actor>;

  if (level === 'user') {
    if (userEmail !== null) throw badRequest('X-User-Email cannot be sent with a user key: a user key always acts as its own user');
    return { ...base, user: keyUser, actingVia: 'user_key' };
  }
  if (userEmail === null) return { ...base, user: null, actingVia: null };
  const user = await userByEmail(deps.db, row.key.accountId, userEmail);
  // An organization key acts only as users of its own organization.
  if (!user || (level === 'organization' && user.organizationId !== row.key.organizationId)) {
    throw unauthorized('X-User-Email matches no user in this account');
  }
  return { ...base, user, actingVia: 'x_user_email' };
}

async function userById(db: Db, id: string): Promise<UserRow | null> {
  const [row] = await statements(db).userById.execute({ id });
  return row ?? null;
}

function pickAccount(a: Actor['account']): Actor['account'] {
  return { killSwitch: a.killSwitch, rateLimitReads: a.rateLimitReads, rateLimitWrites: a.rateLimitWrites };
}

/**
 * X-User-Email acts as the user holding that address as a verified email identifier, the rule
 * every "who is this email" question follows: an unverified address, even one a user made
 * primary before that needed proof, or a custom identifier shaped like an address, names nobody.
 */
export async function userByEmail(db: Db, accountId: string, email: string): Promise<UserRow | null> {
  const [row] = await statements(db).userByVerifiedEmail.execute({ accountId, value: normalizeEmail(email) });
  return row?.user ?? null;
}

const keyCache = new Map<string, { pem: string; key: CryptoKey }>();
const MAX_TOKEN_LIFETIME_S = 3600;
const CLOCK_SKEW_S = 60;

async function certificateActor(deps: AuthDeps, token: string, userEmail: string | null): Promise<Actor> {
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== 'RS256') throw unauthorized('Certificate tokens must be signed with RS256');
    kid = header.kid;
  } catch (e) {
    if (e instanceof Error && 'status' in e) throw e;
    throw unauthorized('Malformed certificate token');
  }
  if (!kid) throw unauthorized('Certificate token has no kid');
  const [row] = await deps.db
    .select({ cert: accountCertificates, account: accounts })
    .from(accountCertificates)
    .innerJoin(accounts, eq(accounts.id, accountCertificates.accountId))
    .where(eq(accountCertificates.id, kid))
    .limit(1);
  if (!row || row.cert.revokedAt) throw unauthorized('Unknown or revoked certificate');

  let cached = keyCache.get(kid);
  if (!cached || cached.pem !== row.cert.publicKeyPem) {
    cached = { pem: row.cert.publicKeyPem, key: (await importSPKI(row.cert.publicKeyPem, 'RS256')) as CryptoKey };
    keyCache.set(kid, cached);
  }
  const now = deps.now?.() ?? new Date();
  let payload;
  try {
    ({ payload } = await jwtVerify(token, cached.key, {
      algorithms: ['RS256'],
      currentDate: now,
      clockTolerance: CLOCK_SKEW_S,
    }));
  } catch {
    throw unauthorized('Certificate token failed verification or has expired');
  }
  if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') {
    throw unauthorized('Certificate token needs iat and exp');
  }
  if (payload.exp - payload.iat > MAX_TOKEN_LIFETIME_S) throw unauthorized('Certificate token lifetime exceeds one hour');
  if (payload.iat > now.getTime() / 1000 + CLOCK_SKEW_S) throw unauthorized('Certificate token issued in the future');
  if ('type' in payload) throw unauthorized('Certificate tokens with a type claim are refused');

  const base = {
    accountId: row.cert.accountId,
    credential: {
      kind: 'certificate' as const,
      kid,
      email: typeof payload.email === 'string' ? payload.email.toLowerCase() : null,
    },
    level: 'account' as const,
    organizationId: null,
    scopes: [],
    account: pickAccount(row.account),
  };
  // A delegated token (with `email`) still acts account-wide, as the spec states for now.
  if (userEmail === null) return { ...base, user: null, actingVia: null };
  const user = await userByEmail(deps.db, row.cert.accountId, userEmail);
  if (!user) throw unauthorized('X-User-Email matches no user in this account');
  return { ...base, user, actingVia: 'x_user_email' };
}
