import { and, asc, eq, ne } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { activeMemberships } from '@/db/queries/memberships';
import { organizations, users, type UserRow } from '@/db/schema';
import { badRequest, conflict, forbidden, notFound } from '@/server/http/errors';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import { assertNotOnlyOrgAdmin } from '@/server/organizations/refusals';
import { hireDefaultAssistant } from '@/server/organizations/default-assistant';
import { vouchesFor } from '@/server/organizations/vouching';
import { activeMembership, createOwnTeam } from '@/server/teams/membership';
import { assertOwnsNoSharedTeam } from '@/server/teams/refusals';
import { createUserWithEmail } from '@/server/user-record/create';
import { removeUser } from '@/server/users/service';
import { auditUserUpdate } from '@/server/users/audit';
import { auditScim, scimActor } from './audit';
import { ScimUserBody } from './contracts';
import { scimBadRequest } from './errors';
import { compileFilter } from './filter';
import { applyPatch } from './patch';
import { project } from './projection';
import { listResponse, type ListQuery } from './query';
import { ENTERPRISE_ALIAS, ENTERPRISE_SCHEMA, USER, USER_SCHEMA } from './schema';
import { enterpriseOf, enterpriseView, readEnterprise, saveEnterprise, wireUser } from './enterprise';
import type { ScimEnterprise } from '@/db/schema';
import type { ScimCaller, ScimScope } from './token';

export function toScimUser(base: string, u: UserRow, groups: Array<{ id: string; name: string }>, enterprise?: ScimEnterprise) {
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
    ...enterpriseView(enterprise),
    meta: { resourceType: 'User', created: u.createdAt.toISOString(), lastModified: u.updatedAt.toISOString(), location: `${base}/Users/${u.id}` },
  };
}
export type ScimUser = ReturnType<typeof toScimUser>;

async function groupsOf(db: Db, userId: string) {
  return (await activeMemberships(db, userId)).map(({ t }) => ({ id: t.id, name: t.name }));
}

async function orgUser(db: Db, caller: ScimCaller, id: string): Promise<UserRow> {
  const [u] = await db.select().from(users).where(and(eq(users.id, id), eq(users.organizationId, caller.organizationId)));
  if (!u) throw notFound('User');
  return u;
}

export async function presentScimUser(db: Db, base: string, u: UserRow): Promise<ScimUser> {
  const [groups, enterprise] = await Promise.all([groupsOf(db, u.id), enterpriseOf(db, [u.id])]);
  return toScimUser(base, u, groups, enterprise.get(u.id));
}

/** The organization's users, filtered with the SCIM filter language (in memory: an organization is small). */
export async function listScimUsers(db: Db, caller: ScimScope, q: ListQuery) {
  const test = q.filter ? compileFilter(USER, q.filter) : null;
  const rows = await db.select().from(users).where(eq(users.organizationId, caller.organizationId)).orderBy(asc(users.createdAt));
  const enterprise = await enterpriseOf(db, rows.map((u) => u.id));
  const all = await Promise.all(rows.map(async (u) => toScimUser(caller.base, u, await groupsOf(db, u.id), enterprise.get(u.id))));
  const list = listResponse(test ? all.filter(test) : all, q);
  return { ...list, Resources: list.Resources.map((r) => wireUser(project(USER, r, q))) };
}

export async function getScimUser(db: Db, caller: ScimScope, id: string) {
  return presentScimUser(db, caller.base, await orgUser(db, caller, id));
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
/** What SCIM may set on a user: a PATCH can also clear externalId. */
type Columns = Omit<NonNullable<ReturnType<typeof fields>>, 'externalId'> & { externalId?: string | null };

const EmailList = z.array(z.object({ value: z.string() }).passthrough());

/**
 * `emails` may only repeat the userName: a user's one email is their verified address (schema.ts).
 * Another address is refused, never dropped: invalidValue on creation, mutability afterwards.
 */
function assertEmailsAreUserName(userName: string, emails: unknown, scimType: 'invalidValue' | 'mutability') {
  if (emails === undefined || emails === null) return;
  const parsed = EmailList.safeParse(emails);
  if (!parsed.success) throw scimBadRequest('invalidValue', 'emails: must be a list of {value}');
  const other = parsed.data.find((e) => e.value.trim().toLowerCase() !== userName);
  if (other) {
    throw scimBadRequest(scimType, `emails: ${other.value} is not the userName; a user’s only email is their userName (${userName}), which SCIM does not change`);
  }
}

/**
 * Creates the user in the organization. A SCIM token speaks for the organization's verified
 * domains only and SCIM has no invitations, so an address elsewhere is refused (403) whether or
 * not someone holds it: never an adoption, never an org-controlled claim on another person's
 * address. At a verified domain, a user of another organization is a uniqueness conflict (409)
 * and a user without one is adopted, as autoJoin would.
 */
export async function createScimUser(db: Db, caller: ScimScope, raw: unknown) {
  const body = parseUser(raw);
  assertEmailsAreUserName(body.userName, body.emails, 'invalidValue');
  const enterprise = readEnterprise(body[ENTERPRISE_SCHEMA]);
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
      const adopting = Boolean(u);
      u ??= await createUserWithEmail(tx, { accountId: caller.accountId, email: body.userName, organizationId: caller.organizationId });
      [u] = await tx.update(users).set({ organizationId: caller.organizationId, ...fields(body) }).where(eq(users.id, u.id)).returning();
      if (!(await activeMembership(tx, u.id))) await createOwnTeam(tx, u, caller.organizationId);
      await saveEnterprise(tx, u, enterprise);
      const [org] = await tx.select().from(organizations).where(eq(organizations.id, caller.organizationId));
      if (org) await hireDefaultAssistant(tx, org, u);
      await auditScim(tx, caller, 'user.provisioned', { type: 'user', id: u.id }, { before: adopting ? { organizationId: null } : null, after: { email: u.email, created: !adopting, organizationId: caller.organizationId, status: u.status } });
      await auditScim(tx, caller, 'member.added', { type: 'user', id: u.id }, { after: { organizationId: caller.organizationId, organizationRole: u.organizationRole } });
      return u;
    }),
  );
  return presentScimUser(db, caller.base, user);
}

/** externalId is unique in the account: a second user with the same one is a SCIM uniqueness conflict, not a 500. */
async function assertExternalIdFree(tx: Tx, caller: ScimCaller, externalId: string | null | undefined, selfId: string | null) {
  if (externalId === undefined || externalId === null) return;
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

/** Stores the columns; with nothing to change (a PUT of only userName, say), the user stays as is. */
async function save(db: Db, caller: ScimCaller, u: UserRow, set: Columns | null): Promise<UserRow> {
  if (!set) return u;
  return uniquely(() =>
    db.transaction(async (tx) => {
      await assertExternalIdFree(tx, caller, set.externalId, u.id);
      const [saved] = await tx.update(users).set(set).where(eq(users.id, u.id)).returning();
      // Deactivation by the IdP is `user.status_changed`; names and externalId `user.updated` (users/audit.ts).
      await auditUserUpdate(tx, scimActor(caller), u, saved, { caller });
      return saved;
    }),
  );
}

function parseUser(raw: unknown) {
  const parsed = ScimUserBody.safeParse(raw);
  if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return parsed.data;
}

/** The address is the person's verified identity; SCIM cannot move them to another one. */
function assertSameUserName(u: UserRow, userName: string) {
  if (userName !== u.email) throw scimBadRequest('mutability', `userName: cannot be changed through SCIM (it is ${u.email})`);
}

/** PUT: the attributes sent replace the stored ones; readOnly ones (groups, meta) are ignored, as RFC 7644 §3.5.1 says. */
export async function replaceScimUser(db: Db, caller: ScimScope, id: string, raw: unknown) {
  const u = await orgUser(db, caller, id);
  const body = parseUser(raw);
  assertSameUserName(u, body.userName);
  assertEmailsAreUserName(u.email, body.emails, 'mutability');
  // PUT replaces: an extension the body leaves out is cleared (RFC 7644 §3.5.1).
  const enterprise = readEnterprise(body[ENTERPRISE_SCHEMA]);
  const saved = await save(db, caller, u, fields(body));
  await saveEnterprise(db, u, enterprise);
  return presentScimUser(db, caller.base, saved);
}

const text = z.string({ message: 'must be a string' }).nullish();
/** What a patched user view must hold before anything is stored. */
const PatchedUser = z
  .object({
    externalId: z.string({ message: 'must be a string' }).max(200).nullish(),
    displayName: text,
    name: z.object({ givenName: text, familyName: text, formatted: text }, { message: 'must be an object' }).passthrough().nullish(),
    active: z.boolean({ message: 'must be true or false' }),
  })
  .passthrough();

const same = (x: unknown, y: unknown) => (x ?? null) === (y ?? null);

/** The columns a PATCH changed: each attribute whose value differs after the operations. */
function patchedColumns(before: ScimUser, patched: Record<string, unknown>): Columns | null {
  const checked = PatchedUser.safeParse(patched);
  if (!checked.success) throw badRequest(`Operations: the patched user is invalid: ${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const after = checked.data;
  const b = before.name;
  const a = after.name ?? {};
  // displayName and name.formatted are one stored name: the one the operations changed wins.
  const name = !same(before.displayName, after.displayName) ? (after.displayName ?? null) : !same(b.formatted, a.formatted) ? (a.formatted ?? null) : undefined;
  return changedFields({
    firstName: same(b.givenName, a.givenName) ? undefined : (a.givenName ?? ''),
    lastName: same(b.familyName, a.familyName) ? undefined : (a.familyName ?? ''),
    name,
    externalId: same(before.externalId, after.externalId) ? undefined : (after.externalId ?? null),
    status: after.active === before.active ? undefined : after.active ? ('active' as const) : ('inactive' as const),
  });
}

/** Applies RFC 7644 PATCH operations to the user's SCIM view (patch.ts), then stores what changed. */
export async function patchScimUser(db: Db, caller: ScimScope, id: string, raw: unknown) {
  const u = await orgUser(db, caller, id);
  const before = await presentScimUser(db, caller.base, u);
  const patched = applyPatch(USER, before, raw);
  const columns = patchedColumns(before, patched);
  const enterprise = readEnterprise(patched[ENTERPRISE_ALIAS], ENTERPRISE_SCHEMA);
  const saved = await save(db, caller, u, columns);
  if (JSON.stringify(enterprise) !== JSON.stringify(readEnterprise((before as Record<string, unknown>)[ENTERPRISE_ALIAS]))) await saveEnterprise(db, u, enterprise);
  return presentScimUser(db, caller.base, saved);
}

/** Deleting through SCIM deprovisions: the user is deleted, after the same refusals as DELETE /users. */
export async function deleteScimUser(db: Db, caller: ScimCaller, id: string) {
  const u = await orgUser(db, caller, id);
  await db.transaction(async (tx) => {
    await assertNotOnlyOrgAdmin(tx, u);
    await assertOwnsNoSharedTeam(tx, u);
    await removeUser(tx, u);
    await auditScim(tx, caller, 'user.deleted', { type: 'user', id: u.id }, { before: { email: u.email, organizationId: u.organizationId }, after: null });
  });
}
