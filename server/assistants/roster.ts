import { recordAudit } from '@/server/audit/record';
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { assistants, rosterEntries, users, type UserRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest, conflict, forbidden, notFound } from '@/server/http/errors';
import { visibleUser } from '@/server/user-record/access';
import { presentUser } from '@/server/user-record/present';
import type { HireBody } from './contracts';
import { emailTaken, freeAddresses } from './emails';
import { moveOpenTasks, openTaskCount } from './open-tasks';
import { toPublicAssistant } from './present';
import { profileColumns, retireAssistant } from './service';
import { visibleToUser } from './access';

async function rosterOf(tx: Tx, userId: string) {
  return tx
    .select({ a: assistants })
    .from(rosterEntries)
    .innerJoin(assistants, eq(assistants.id, rosterEntries.assistantId))
    .where(and(eq(rosterEntries.userId, userId), isNull(assistants.deletedAt)))
    .orderBy(asc(rosterEntries.createdAt));
}

/** Adds to the roster; the first assistant on an empty roster becomes primary. */
async function addToRoster(tx: Tx, user: UserRow, assistantId: string) {
  const roster = await rosterOf(tx, user.id);
  if (roster.some((r) => r.a.id === assistantId)) return;
  await tx.insert(rosterEntries).values({ userId: user.id, assistantId }).onConflictDoNothing();
  if (roster.length === 0 || !user.primaryAssistantId) await tx.update(users).set({ primaryAssistantId: assistantId }).where(eq(users.id, user.id));
}

export async function getRoster(db: Db, actor: Actor, userId: string) {
  const user = await visibleUser(db, actor, userId);
  const roster = await rosterOf(db, user.id);
  return {
    ok: true as const,
    assistants: roster.map((r) => toPublicAssistant(r.a, { isPrimary: r.a.id === user.primaryAssistantId })),
    primaryAssistantId: user.primaryAssistantId,
  };
}

/** Creates the user's own assistant and hires it; an assistant of that name already on the roster is returned unchanged (200). */
export async function createAndHire(db: Db, actor: Actor, userId: string, input: z.infer<typeof HireBody>) {
  const user = await visibleUser(db, actor, userId);
  const result = await db.transaction(async (tx) => {
    const existing = (await rosterOf(tx, user.id)).find((r) => r.a.name.toLowerCase() === input.name.toLowerCase());
    if (existing) return { created: false, assistant: existing.a };
    const email = input.email ?? (await freeAddresses(tx, input.name, 1))[0];
    if (!email || (await emailTaken(tx, email))) throw badRequest('email: already used by another assistant');
    const [a] = await tx
      .insert(assistants)
      .values({ accountId: actor.accountId, scope: 'user', userId: user.id, organizationId: user.organizationId, country: user.country, ...profileColumns({ ...input, email }) } as typeof assistants.$inferInsert)
      .returning();
    await addToRoster(tx, user, a.id);
    await recordAudit(tx, actor, 'assistant.created', { type: 'assistant', id: a.id }, { organizationId: a.organizationId, after: { name: a.name, email: a.email, scope: a.scope, userId: user.id } });
    return { created: true, assistant: a };
  });
  const [fresh] = await db.select().from(users).where(eq(users.id, user.id));
  return { created: result.created, body: { ok: true as const, assistant: toPublicAssistant(result.assistant, { isPrimary: fresh.primaryAssistantId === result.assistant.id }) } };
}

export async function hire(db: Db, actor: Actor, userId: string, assistantId: string) {
  const user = await visibleUser(db, actor, userId);
  await db.transaction(async (tx) => {
    const [a] = await tx.select().from(assistants).where(and(eq(assistants.id, assistantId), eq(assistants.accountId, actor.accountId), isNull(assistants.deletedAt)));
    if (!a) throw notFound('Assistant');
    if (!(await visibleToUser(tx, user, a))) throw forbidden('This assistant is not visible to the user');
    await addToRoster(tx, user, a.id);
  });
  return userAnswer(db, user.id);
}

export async function makePrimary(db: Db, actor: Actor, userId: string, assistantId: string) {
  const user = await visibleUser(db, actor, userId);
  const roster = await rosterOf(db, user.id);
  if (!roster.some((r) => r.a.id === assistantId)) throw forbidden('The assistant is not on the user’s roster');
  await db.update(users).set({ primaryAssistantId: assistantId }).where(eq(users.id, user.id));
  return userAnswer(db, user.id);
}

/**
 * Releases one of the user's own assistants: deletes it and retires its address. Not the
 * primary (409), not one with open tasks unless transfer=primary moves them (409), and never
 * a shared or account-wide assistant (403).
 */
export async function release(db: Db, actor: Actor, userId: string, assistantId: string, transfer: 'primary' | undefined) {
  const user = await visibleUser(db, actor, userId);
  await db.transaction(async (tx) => {
    const entry = (await rosterOf(tx, user.id)).find((r) => r.a.id === assistantId);
    if (!entry) throw notFound('Assistant');
    if (entry.a.scope !== 'user' || entry.a.userId !== user.id) throw forbidden('Shared and account-wide assistants cannot be released; they stay for everyone who hired them');
    if (user.primaryAssistantId === assistantId) throw conflict('The primary assistant cannot be released: make another one primary first');
    if ((await openTaskCount(tx, assistantId)) > 0) {
      if (transfer !== 'primary' || !user.primaryAssistantId) throw conflict('The assistant has open tasks: pass transfer=primary to move them to the primary assistant');
      await moveOpenTasks(tx, assistantId, user.primaryAssistantId);
    }
    await retireAssistant(tx, entry.a);
    await recordAudit(tx, actor, 'assistant.deleted', { type: 'assistant', id: assistantId }, { organizationId: entry.a.organizationId, before: { name: entry.a.name, email: entry.a.email, scope: entry.a.scope, userId: user.id }, after: null });
  });
  return { ok: true as const, assistant: { id: assistantId, deleted: true as const, message: 'Assistant released; its address is retired' } };
}

async function userAnswer(db: Db, userId: string) {
  const [u] = await db.select().from(users).where(eq(users.id, userId));
  return { ok: true as const, user: await presentUser(db, u) };
}
