import { and, asc, count, eq, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { identifiers, users, type IdentifierRow, type UserRow } from '@/db/schema';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { badRequest, forbidden, notFound } from '@/server/http/errors';
import { visibleUser } from '@/server/user-record/access';
import { presentUser, toPublicIdentifier } from '@/server/user-record/present';
import { applyIdentifierUpdate, lookUpCapabilities, type IdentifierHooks } from './capabilities';
import type { CreateIdentifierBody, ListIdentifiersQuery, UpdateIdentifierBody } from './contracts';
import { normalizeValue } from './normalize';

/** The user an identifier call is about: the acting user, or `userId` for account-wide callers. */
async function subject(db: Db, actor: Actor, userId: string | undefined): Promise<UserRow> {
  if (actor.user) {
    if (userId && userId !== actor.user.id) return visibleUser(db, actor, userId);
    return actor.user;
  }
  if (!userId) throw badRequest('userId: required without a user on the call');
  return visibleUser(db, actor, userId);
}

/** An identifier of a user the caller may see (404 otherwise). */
async function visibleIdentifier(db: Tx, actor: Actor, id: string): Promise<{ identifier: IdentifierRow; user: UserRow }> {
  const [row] = await db
    .select({ identifier: identifiers, user: users })
    .from(identifiers)
    .innerJoin(users, eq(users.id, identifiers.userId))
    .where(and(eq(identifiers.id, id), eq(identifiers.accountId, actor.accountId)))
    .limit(1);
  if (!row) throw notFound('Identifier');
  await visibleUser(db as Db, actor, row.user.id).catch(() => {
    throw notFound('Identifier');
  });
  return row;
}

const isUniqueViolation = (e: unknown) => (e as { code?: string }).code === '23505' || (e as { cause?: { code?: string } }).cause?.code === '23505';

async function assertFree(db: Tx, accountId: string, value: string) {
  const [taken] = await db.select({ id: identifiers.id }).from(identifiers).where(and(eq(identifiers.accountId, accountId), eq(identifiers.value, value)));
  if (taken) throw badRequest('value: already held by a user of this account');
}

export async function createIdentifier(db: Db, actor: Actor, input: z.infer<typeof CreateIdentifierBody>, hooks?: IdentifierHooks) {
  const user = await subject(db, actor, input.userId);
  const value = normalizeValue(input.type, input.value, user.country);
  // Only account-wide credentials vouch for ownership; a user proves it through the hosted app's code flow.
  const verified = isAccountWide(actor) ? (input.verified ?? false) : false;
  const row = await db
    .transaction(async (tx) => {
      await assertFree(tx, actor.accountId, value);
      const [r] = await tx
        .insert(identifiers)
        .values({ accountId: actor.accountId, userId: user.id, type: input.type, value, verified, label: input.label ?? null })
        .returning();
      return r;
    })
    .catch((e) => {
      // Two concurrent claims of one value: the unique index decides, and the loser hears why.
      if (isUniqueViolation(e)) throw badRequest('value: already held by a user of this account');
      throw e;
    });
  // A phone added verified (account-wide credentials) is looked up as a verified one is.
  const looked = await lookUpCapabilities(db, row, hooks);
  return { ok: true as const, identifier: toPublicIdentifier(looked), user: await presentUser(db, user, { withIdentifiers: true }) };
}

export async function listIdentifiers(db: Db, actor: Actor, q: z.infer<typeof ListIdentifiersQuery>) {
  const user = await subject(db, actor, q.userId);
  const filters: SQL[] = [eq(identifiers.userId, user.id)];
  if (q.type) filters.push(eq(identifiers.type, q.type));
  const rows = await db.select().from(identifiers).where(and(...filters)).orderBy(asc(identifiers.createdAt));
  return { ok: true as const, identifiers: rows.map(toPublicIdentifier) };
}

/** Makes a verified email identifier the user's primary email (and their `email`). */
export async function makePrimary(db: Db, actor: Actor, id: string) {
  const { identifier, user } = await visibleIdentifier(db, actor, id);
  if (identifier.type !== 'email') throw badRequest('Only an email identifier can be the primary email');
  // The primary email is the user's `email`, which provisioning and sign-in treat as theirs: it must be proven.
  if (!identifier.verified) throw badRequest('identifierId: this email is not verified; only a verified email identifier can be the primary email');
  await db.transaction(async (tx) => {
    await tx.update(identifiers).set({ primary: false }).where(and(eq(identifiers.userId, user.id), eq(identifiers.type, 'email')));
    await tx.update(identifiers).set({ primary: true }).where(eq(identifiers.id, identifier.id));
    await tx.update(users).set({ email: identifier.value }).where(eq(users.id, user.id));
  });
  return respond(db, identifier.id, user.id);
}

/** PATCH /identifiers/{identifierId}: the label, and a verified phone's preferred text platform. */
export async function updateIdentifier(db: Db, actor: Actor, id: string, input: z.infer<typeof UpdateIdentifierBody>) {
  const { identifier, user } = await visibleIdentifier(db, actor, id);
  const row = await applyIdentifierUpdate(db, identifier, input);
  return respond(db, row.id, user.id);
}

/** The last identifier and the primary email stay: a user is always reachable and named. */
async function assertRemovable(tx: Tx, identifier: IdentifierRow) {
  if (identifier.primary && identifier.type === 'email') throw badRequest('The primary email cannot be removed: make another email primary first');
  const [{ n }] = await tx.select({ n: count() }).from(identifiers).where(eq(identifiers.userId, identifier.userId));
  if (n <= 1) throw badRequest('A user’s last identifier cannot be removed');
}

/** Moves an identifier to another user; account-wide credentials only. */
export async function linkIdentifier(db: Db, actor: Actor, id: string, userId: string) {
  const { identifier } = await visibleIdentifier(db, actor, id);
  if (!isAccountWide(actor)) throw forbidden('Linking identifiers needs an account-wide credential');
  const target = await visibleUser(db, actor, userId);
  if (target.id === identifier.userId) return respond(db, identifier.id, target.id);
  await db.transaction(async (tx) => {
    await assertRemovable(tx, identifier);
    await tx.update(identifiers).set({ userId: target.id, primary: false }).where(eq(identifiers.id, identifier.id));
  });
  return respond(db, identifier.id, target.id);
}

export async function deleteIdentifier(db: Db, actor: Actor, id: string) {
  const { identifier } = await visibleIdentifier(db, actor, id);
  await db.transaction(async (tx) => {
    await assertRemovable(tx, identifier);
    await tx.delete(identifiers).where(eq(identifiers.id, identifier.id));
  });
  return { ok: true as const, identifier: { id: identifier.id, deleted: true as const } };
}

async function respond(db: Db, identifierId: string, userId: string) {
  const [identifier] = await db.select().from(identifiers).where(eq(identifiers.id, identifierId));
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  return { ok: true as const, identifier: toPublicIdentifier(identifier), user: await presentUser(db, user, { withIdentifiers: true }) };
}
