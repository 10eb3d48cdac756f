import { and, asc, eq, ne } from 'drizzle-orm';
import { filter as scimFilter, parse as parseFilter } from 'scim2-parse-filter';
import { scimPatch, type ScimPatchOperation } from 'scim-patch';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { activeMemberships } from '@/db/queries/memberships';
import { users, type UserRow } from '@/db/schema';
import { badRequest, conflict, forbidden, notFound } from '@/server/http/errors';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import { assertNotOnlyOrgAdmin } from '@/server/organizations/refusals';
import { vouchesFor } from '@/server/organizations/vouching';
import { activeMembership, createOwnTeam } from '@/server/teams/membership';
import { assertOwnsNoSharedTeam } from '@/server/teams/refusals';
import { createUserWithEmail } from '@/server/user-record/create';
import { removeUser } from '@/server/users/service';
import { PatchOps, ScimUserBody } from './contracts';
import type { ScimCaller } from './token';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export function toScimUser(u: UserRow, groups: Array<{ id: string; name: string }>) {
  return {
    schemas: [USER_SCHEMA],
    id: u.id,
    externalId: u.externalId ?? undefined,
    userName: u.email,
    name: { givenName: u.firstName, familyName: u.lastName, formatted: u.name ?? [u.firstName, u.lastName].filter(Boolean).join(' ') },
    displayName: u.name ?? ([u.firstName, u.lastName].filter(Boolean).join(' ') || u.email),
    emails: [{ value: u.email, primary: true, type: 'work' }],
    active: u.status === 'active',
    groups: groups.map((g) => ({ value: g.id, display: g.name })),
    meta: { resourceType: 'User', created: u.createdAt.toISOString(), lastModified: u.updatedAt.toISOString(), location: `/api/scim/v2/Users/${u.id}` },
  };
}

async function groupsOf(db: Db, userId: string) {
  return (await activeMemberships(db, userId)).map(({ t }) => ({ id: t.id, name: t.name }));
}

async function orgUser(db: Db, caller: ScimCaller, id: string): Promise<UserRow> {
  const [u] = await db.select().from(users).where(and(eq(users.id, id), eq(users.organizationId, caller.organizationId)));
  if (!u) throw notFound('User');
  return u;
}

export async function presentScimUser(db: Db, u: UserRow) {
  return toScimUser(u, await groupsOf(db, u.id));
}

/** The organization's users, filtered with the SCIM filter language (in memory: an organization is small). */
export async function listScimUsers(db: Db, caller: ScimCaller, q: { filter?: string; startIndex: number; count: number }) {
  const rows = await db.select().from(users).where(eq(users.organizationId, caller.organizationId)).orderBy(asc(users.createdAt));
  let resources = await Promise.all(rows.map((u) => presentScimUser(db, u)));
  if (q.filter) {
    let test: (r: unknown) => boolean;
    try {
      test = scimFilter(parseFilter(q.filter));
    } catch {
      throw badRequest(`filter: cannot parse ${q.filter}`);
    }
    resources = resources.filter(test);
  }
  const page = resources.slice(q.startIndex - 1, q.startIndex - 1 + q.count);
  return { schemas: [LIST_SCHEMA], totalResults: resources.length, startIndex: q.startIndex, itemsPerPage: page.length, Resources: page };
}

export async function getScimUser(db: Db, caller: ScimCaller, id: string) {
  return presentScimUser(db, await orgUser(db, caller, id));
}

/** The user columns a SCIM body sets, or null when it sets none. */
function fields(body: z.infer<typeof ScimUserBody>) {
  const named = body.displayName !== undefined || body.name?.formatted !== undefined;
  return changedFields({
    firstName: body.name?.givenName,
    lastName: body.name?.familyName,
    name: named ? (body.displayName ?? body.name?.formatted ?? null) : undefined,
    externalId: body.externalId,
    status: body.active === undefined ? undefined : body.active ? ('active' as const) : ('inactive' as const),
  });
}

/**
 * Creates the user in the organization. A SCIM token speaks for the organization's verified
 * domains only and SCIM has no invitations, so an address elsewhere is refused (403) whether or
 * not someone holds it: never an adoption, never an org-controlled claim on another person's
 * address. At a verified domain, a user of another organization is a uniqueness conflict (409)
 * and a user without one is adopted, as autoJoin would.
 */
export async function createScimUser(db: Db, caller: ScimCaller, raw: unknown) {
  const body = parseUser(raw);
  const user = await uniquely(() =>
    db.transaction(async (tx) => {
      let u = await findUserByVerifiedEmail(tx, caller.accountId, body.userName);
      if (u && u.organizationId === caller.organizationId) throw conflict(`userName ${body.userName} already exists`);
      // Checked before looking further, so the answer outside the verified domains says nothing about who exists.
      if (!(await vouchesFor(tx, caller.organizationId, caller.accountId, body.userName))) {
        throw forbidden(`userName ${body.userName} is not at one of the organization’s verified domains`);
      }
      if (u?.organizationId) throw conflict(`userName ${body.userName} is already taken by a user of another organization`);
      await assertExternalIdFree(tx, caller, body.externalId, u?.id ?? null);
      u ??= await createUserWithEmail(tx, { accountId: caller.accountId, email: body.userName, organizationId: caller.organizationId });
      [u] = await tx.update(users).set({ organizationId: caller.organizationId, ...fields(body) }).where(eq(users.id, u.id)).returning();
      if (!(await activeMembership(tx, u.id))) await createOwnTeam(tx, u, caller.organizationId);
      return u;
    }),
  );
  return presentScimUser(db, user);
}

/** externalId is unique in the account: a second user with the same one is a SCIM uniqueness conflict, not a 500. */
async function assertExternalIdFree(tx: Tx, caller: ScimCaller, externalId: string | undefined, selfId: string | null) {
  if (externalId === undefined) return;
  const [taken] = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.accountId, caller.accountId), eq(users.externalId, externalId), selfId ? ne(users.id, selfId) : undefined))
    .limit(1);
  if (taken) throw conflict(`externalId ${externalId} is already used by another user`);
}

/** Two requests racing for one userName or externalId: the unique index decides, and the loser hears 409. */
async function uniquely<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const code = (e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code;
    if (code === '23505') throw conflict('userName or externalId is already used by another user');
    throw e;
  }
}

/** Stores the SCIM fields sent; a body with nothing to change (only userName, say) changes nothing. */
async function saveFields(db: Db, caller: ScimCaller, u: UserRow, body: z.infer<typeof ScimUserBody>): Promise<UserRow> {
  // The address is the person's verified identity; SCIM cannot move it to another one.
  if (body.userName !== u.email) throw badRequest(`userName: cannot be changed through SCIM (it is ${u.email})`);
  const set = fields(body);
  if (!set) return u;
  return uniquely(() =>
    db.transaction(async (tx) => {
      await assertExternalIdFree(tx, caller, body.externalId, u.id);
      const [saved] = await tx.update(users).set(set).where(eq(users.id, u.id)).returning();
      return saved;
    }),
  );
}

function parseUser(raw: unknown) {
  const parsed = ScimUserBody.safeParse(raw);
  if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return parsed.data;
}

export async function replaceScimUser(db: Db, caller: ScimCaller, id: string, raw: unknown) {
  const u = await orgUser(db, caller, id);
  const body = parseUser(raw);
  return presentScimUser(db, await saveFields(db, caller, u, body));
}

/** Applies RFC 7644 PATCH operations (scim-patch) to the user's SCIM view, then stores what changed. */
export async function patchScimUser(db: Db, caller: ScimCaller, id: string, raw: unknown) {
  const u = await orgUser(db, caller, id);
  const ops = normalizeOps(raw);
  let patched: Record<string, unknown>;
  try {
    patched = scimPatch(structuredClone(await presentScimUser(db, u)) as never, ops) as unknown as Record<string, unknown>;
  } catch (e) {
    throw badRequest(`Operations: ${(e as Error).message}`);
  }
  const body = parseUser({ ...patched, userName: patched.userName ?? u.email });
  return presentScimUser(db, await saveFields(db, caller, u, body));
}

/** Deleting through SCIM deprovisions: the user is deleted, after the same refusals as DELETE /users. */
export async function deleteScimUser(db: Db, caller: ScimCaller, id: string) {
  const u = await orgUser(db, caller, id);
  await db.transaction(async (tx) => {
    await assertNotOnlyOrgAdmin(tx, u);
    await assertOwnsNoSharedTeam(tx, u);
    await removeUser(tx, u);
  });
}

/** IdPs send "Replace" and "False"; scim-patch expects lower-case ops and real booleans. */
export function normalizeOps(raw: unknown): ScimPatchOperation[] {
  const parsed = PatchOps.safeParse(raw);
  if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  const fix = (v: unknown): unknown => (v === 'False' || v === 'false' ? false : v === 'True' || v === 'true' ? true : Array.isArray(v) ? v.map(fix) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fix(x)])) : v);
  return parsed.data.Operations.map((op) => ({ ...op, op: op.op.toLowerCase(), value: fix(op.value) }) as ScimPatchOperation);
}
