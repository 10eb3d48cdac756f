import { and, count, desc, eq, inArray, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { apiKeys, users, type ApiKeyRow } from '@/db/schema';
import { badRequest, forbidden, invalidFields, notFound, type FieldProblem } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import { administeredOrganization, isAccountWide, type Actor } from './actor';
import type { CreateApiKeyBody, ListApiKeysQuery } from './contracts';
import { generateApiKey } from './keys';
import { scopesBeyond } from './scopes';
import type { LastUsedTracker } from './last-used';
import { recordAudit } from '@/server/audit/record';

export function toPublicApiKey(k: ApiKeyRow, lastUsed?: LastUsedTracker) {
  const pending = lastUsed?.peek(k.id);
  const last = pending && (!k.lastUsedAt || pending > k.lastUsedAt) ? pending : k.lastUsedAt;
  return {
    id: k.id,
    account: k.accountId,
    organization: k.organizationId,
    user: k.userId,
    label: k.label,
    prefix: k.prefix,
    scopes: k.scopes,
    status: k.status,
    lastUsedAt: last ? last.toISOString() : null,
    expiresAt: k.expiresAt ? k.expiresAt.toISOString() : null,
    createdAt: k.createdAt.toISOString(),
  };
}

/** Ids of the users of an organization, as a subquery. */
const orgUsers = (db: Db, orgId: string) => db.select({ id: users.id }).from(users).where(eq(users.organizationId, orgId));

/**
 * The two common listings (an account-wide key, a user's own keys) as prepared statements that
 * fetch the page and the total in one round trip (a window count): the hot path of GET /api-keys.
 */
const preparedLists = new WeakMap<Db, ReturnType<typeof prepareLists>>();
function prepareLists(db: Db) {
  const page = (where: SQL, name: string) =>
    db
      .select({ key: apiKeys, total: sql<number>`count(*) over ()`.mapWith(Number) })
      .from(apiKeys)
      .where(where)
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare(name);
  return {
    account: page(eq(apiKeys.accountId, sql.placeholder('accountId')), 'api_keys_page_account'),
    user: page(and(eq(apiKeys.accountId, sql.placeholder('accountId')), eq(apiKeys.userId, sql.placeholder('userId')))!, 'api_keys_page_user'),
  };
}
function lists(db: Db) {
  let l = preparedLists.get(db);
  if (!l) preparedLists.set(db, (l = prepareLists(db)));
  return l;
}

export async function listApiKeys(db: Db, actor: Actor, q: z.infer<typeof ListApiKeysQuery>, lastUsed?: LastUsedTracker) {
  const filters: SQL[] = [eq(apiKeys.accountId, actor.accountId)];
  let common: 'account' | 'user' | null = null;
  if (q.resource === 'organization') {
    const org = administeredOrganization(actor);
    if (!org) throw forbidden('Listing organization keys needs the organization admin role');
    if (q.scope === 'user') filters.push(inArray(apiKeys.userId, orgUsers(db, org)));
    else filters.push(eq(apiKeys.organizationId, org), isNull(apiKeys.userId));
  } else if (actor.user) {
    filters.push(eq(apiKeys.userId, actor.user.id));
    common = 'user';
  } else if (actor.level === 'organization') {
    filters.push(eq(apiKeys.organizationId, actor.organizationId!), isNull(apiKeys.userId));
  } else {
    common = 'account';
  }
  const { limit, offset } = pageWindow(q);
  const where = and(...filters);
  const rows = common
    ? await lists(db)[common].execute({ accountId: actor.accountId, userId: actor.user?.id ?? '', limit, offset })
    : await db
        .select({ key: apiKeys, total: sql<number>`count(*) over ()`.mapWith(Number) })
        .from(apiKeys)
        .where(where)
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
        .limit(limit)
        .offset(offset);
  // Past the last page the window count is absent: count separately (rare).
  const total = rows.length > 0 ? rows[0].total : offset === 0 ? 0 : (await db.select({ n: count() }).from(apiKeys).where(where))[0].n;
  return { ok: true as const, apiKeys: rows.map((r) => toPublicApiKey(r.key, lastUsed)), ...pageInfo(q, total) };
}

export async function createApiKey(db: Db, actor: Actor, input: z.infer<typeof CreateApiKeyBody>) {
  let userId: string | null = null;
  let organizationId: string | null = null;
  if (input.userId) {
    const [target] = await db
      .select()
      .from(users)
      .where(and(eq(users.id, input.userId), eq(users.accountId, actor.accountId)))
      .limit(1);
    const org = administeredOrganization(actor);
    const self = actor.user?.id === input.userId;
    const visible = target && (self || isAccountWide(actor) || (org !== null && target.organizationId === org));
    // Spec 1 (POST /api-keys): 404 is for a user not in the account; a user of the account the caller
    // may not act for is 403 "not allowed to create this kind" (issue 46).
    if (!target) throw notFound('User');
    if (!visible) throw forbidden('Not allowed to create this kind of key: a key for another user needs the organization or account admin role');
    userId = target.id;
    organizationId = target.organizationId;
  } else if (isAccountWide(actor)) {
    organizationId = null;
  } else {
    const org = administeredOrganization(actor);
    if (org) {
      organizationId = org;
    } else if (actor.user) {
      // A member without admin rights can only ever hold keys that act as themself.
      userId = actor.user.id;
      organizationId = actor.user.organizationId;
    } else {
      throw forbidden('Not allowed to create this kind of key');
    }
  }
  const { scopes, expiresAt } = await boundedByCreator(db, actor, input);
  const { key, hash, prefix } = generateApiKey();
  const row = await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(apiKeys)
      .values({
        accountId: actor.accountId,
        organizationId,
        userId,
        label: input.label,
        prefix,
        keyHash: hash,
        scopes,
        expiresAt,
      })
      .returning();
    await recordAudit(tx, actor, 'api_key.created', { type: 'api_key', id: created.id }, { organizationId, after: keySettings(created) });
    return created;
  });
  return { ok: true as const, apiKey: { ...toPublicApiKey(row), key } };
}

/**
 * A key never reaches more, or lives longer, than the key that creates it: otherwise a leaked
 * read-only or short-lived key buys a permanent, unrestricted one. What the request leaves out
 * is inherited from the creating key; asking for more is a 400 naming the field.
 */
async function boundedByCreator(db: Db, actor: Actor, input: z.infer<typeof CreateApiKeyBody>) {
  let expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  if (actor.credential.kind !== 'api_key') return { scopes: input.scopes ?? [], expiresAt };
  const scopes = input.scopes ?? actor.scopes;
  const problems: FieldProblem[] = [];
  const beyond = scopesBeyond(actor.scopes, scopes);
  if (beyond.length) problems.push({ field: 'scopes', problem: `reach beyond the scopes of the key creating it (${actor.scopes.join(', ')}): ${beyond.join(', ')}` });
  const [creator] = await db.select({ expiresAt: apiKeys.expiresAt }).from(apiKeys).where(eq(apiKeys.id, actor.credential.keyId)).limit(1);
  const limit = creator?.expiresAt ?? null;
  if (limit && !expiresAt) expiresAt = limit;
  if (limit && expiresAt && expiresAt > limit) problems.push({ field: 'expiresAt', problem: `must not be later than ${limit.toISOString()}, when the key creating it expires` });
  if (problems.length) throw invalidFields(problems);
  return { scopes, expiresAt };
}

/**
 * A key the caller may manage: account-wide callers any key of the account; a user
 * their own keys; an organization key or admin the organization's keys and its users' keys.
 * Another user's key is 404; an organization's key seen by a non-admin member is 403.
 */
async function manageableKey(db: Db, actor: Actor, keyId: string): Promise<ApiKeyRow> {
  const [row] = await db
    .select({ key: apiKeys, keyUserOrg: users.organizationId })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, actor.accountId)))
    .limit(1);
  if (!row) throw notFound('API key');
  const k = row.key;
  if (isAccountWide(actor)) return k;
  if (actor.user && k.userId === actor.user.id) return k;
  const org = administeredOrganization(actor);
  const keyOrg = k.userId ? row.keyUserOrg : k.organizationId;
  if (org && keyOrg === org) return k;
  if (!k.userId && k.organizationId && actor.user?.organizationId === k.organizationId) {
    throw forbidden('Managing organization keys needs the organization admin role');
  }
  throw notFound('API key');
}

export async function revokeApiKey(db: Db, actor: Actor, keyId: string) {
  const k = await manageableKey(db, actor, keyId);
  if (k.status === 'revoked') throw badRequest('API key is already revoked');
  const row = await db.transaction(async (tx) => {
    const [revoked] = await tx.update(apiKeys).set({ status: 'revoked', revokedAt: new Date() }).where(eq(apiKeys.id, k.id)).returning();
    await recordAudit(tx, actor, 'api_key.revoked', { type: 'api_key', id: k.id }, { organizationId: k.organizationId, before: keySettings(k), after: keySettings(revoked) });
    return revoked;
  });
  return { ok: true as const, apiKey: toPublicApiKey(row) };
}

/** Only a revoked key can be deleted, so a live integration is never cut off by a delete. */
export async function deleteApiKey(db: Db, actor: Actor, keyId: string) {
  const k = await manageableKey(db, actor, keyId);
  if (k.status !== 'revoked') throw badRequest('Revoke the key before deleting it: an active key cannot be deleted');
  await db.transaction(async (tx) => {
    await tx.delete(apiKeys).where(and(eq(apiKeys.id, k.id), isNotNull(apiKeys.revokedAt)));
    await recordAudit(tx, actor, 'api_key.deleted', { type: 'api_key', id: k.id }, { organizationId: k.organizationId, before: keySettings(k) });
  });
  return { ok: true as const };
}

/** What an audit event shows of a key: its settings, never its hash. */
const keySettings = (k: ApiKeyRow) => ({ label: k.label, prefix: k.prefix, userId: k.userId, organizationId: k.organizationId, scopes: k.scopes, status: k.status, expiresAt: k.expiresAt });

export function me(actor: Actor) {
  return {
    ok: true as const,
    accountId: actor.accountId,
    email: actor.user?.email ?? null,
    orgId: actor.level === 'organization' ? actor.organizationId : null,
    userId: actor.user?.id ?? null,
    scopes: actor.scopes,
  };
}
