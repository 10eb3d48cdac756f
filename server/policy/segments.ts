import { and, asc, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { accountModelTiers, modelTierSegments, organizations, teams, users, type ModelTierSegmentRow } from '@/db/schema';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { conflict, forbidden, invalidFields, notFound, type FieldProblem } from '@/server/http/errors';
import type { AccountTiersBody, CreateSegmentBody, UpdateSegmentBody } from './segments-contracts';
import { recordAudit } from '@/server/audit/record';

/*
 * Model-tier segments (spec document 2, Model tiers): named sets of organizations, teams or users
 * with their own chat and task defaults, for chats and tasks the agent creates itself
 * (segments-resolve.ts). They are an account's configuration, so only an account-wide key (or
 * the admin CLI) manages them; a segment of another account is 404.
 */

type CreateInput = z.infer<typeof CreateSegmentBody>;
type UpdateInput = z.infer<typeof UpdateSegmentBody>;

function requireAccount(actor: Actor): void {
  if (!isAccountWide(actor)) throw forbidden('Model-tier segments are managed with an account-wide key, without X-User-Email');
}

export const presentSegment = (s: ModelTierSegmentRow) => ({
  id: s.id,
  name: s.name,
  modelTiers: { chat: s.chatModelTier, task: s.taskModelTier },
  organizationIds: s.organizationIds,
  teamIds: s.teamIds,
  userIds: s.userIds,
  createdAt: s.createdAt.toISOString(),
  updatedAt: s.updatedAt.toISOString(),
});

/** Each listed member must exist in the account: an unknown id is named with its place in the list. */
async function checkMembers(tx: Tx, accountId: string, input: Pick<CreateInput, 'organizationIds' | 'teamIds' | 'userIds'>): Promise<void> {
  const problems: FieldProblem[] = [];
  const lists = [
    ['organizationIds', input.organizationIds, organizations, 'organization'],
    ['teamIds', input.teamIds, teams, 'team'],
    ['userIds', input.userIds, users, 'user'],
  ] as const;
  for (const [field, ids, table, what] of lists) {
    if (!ids?.length) continue;
    const found = await tx
      .select({ id: table.id })
      .from(table)
      .where(and(eq(table.accountId, accountId), inArray(table.id, [...new Set(ids)])));
    const known = new Set(found.map((r) => r.id));
    ids.forEach((id, i) => {
      if (!known.has(id)) problems.push({ field: `${field}[${i}]`, problem: `no ${what} ${id} in this account` });
    });
  }
  if (problems.length) throw invalidFields(problems);
}

const unique = (ids: string[] | undefined) => (ids ? [...new Set(ids)] : undefined);

async function nameTaken(tx: Tx, accountId: string, name: string, except?: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: modelTierSegments.id })
    .from(modelTierSegments)
    .where(and(eq(modelTierSegments.accountId, accountId), eq(modelTierSegments.name, name)));
  return !!row && row.id !== except;
}

const nameConflict = (name: string) => conflict(`name: a segment named ${name} already exists`, { field: 'name' }, 'segment_name_taken');

export async function listSegments(db: Db, actor: Actor) {
  requireAccount(actor);
  const rows = await db
    .select()
    .from(modelTierSegments)
    .where(eq(modelTierSegments.accountId, actor.accountId))
    .orderBy(asc(modelTierSegments.createdAt), asc(modelTierSegments.id));
  return { ok: true as const, segments: rows.map(presentSegment) };
}

async function segmentOf(tx: Tx, actor: Actor, segmentId: string, lock = false): Promise<ModelTierSegmentRow> {
  const q = tx
    .select()
    .from(modelTierSegments)
    .where(and(eq(modelTierSegments.id, segmentId), eq(modelTierSegments.accountId, actor.accountId)));
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw notFound('Segment');
  return row;
}

export async function getSegment(db: Db, actor: Actor, segmentId: string) {
  requireAccount(actor);
  return { ok: true as const, segment: presentSegment(await segmentOf(db, actor, segmentId)) };
}

/** Unique names hold under concurrent creates: the index refuses the second, answered as the same 409. */
function mapUnique(name: string) {
  return (e: unknown): never => {
    const code = (e as { code?: string; cause?: { code?: string } })?.cause?.code ?? (e as { code?: string })?.code;
    if (code === '23505') throw nameConflict(name);
    throw e;
  };
}

export async function createSegment(db: Db, actor: Actor, input: CreateInput) {
  requireAccount(actor);
  const row = await db
    .transaction(async (tx) => {
      if (await nameTaken(tx, actor.accountId, input.name)) throw nameConflict(input.name);
      await checkMembers(tx, actor.accountId, input);
      const [created] = await tx
        .insert(modelTierSegments)
        .values({
          accountId: actor.accountId,
          name: input.name,
          chatModelTier: input.chat ?? null,
          taskModelTier: input.task ?? null,
          organizationIds: unique(input.organizationIds) ?? [],
          teamIds: unique(input.teamIds) ?? [],
          userIds: unique(input.userIds) ?? [],
        })
        .returning();
      return created;
    })
    .catch(mapUnique(input.name));
  return { ok: true as const, segment: presentSegment(row) };
}

export async function updateSegment(db: Db, actor: Actor, segmentId: string, input: UpdateInput) {
  requireAccount(actor);
  const row = await db
    .transaction(async (tx) => {
      const current = await segmentOf(tx, actor, segmentId, true);
      if (input.name !== undefined && (await nameTaken(tx, actor.accountId, input.name, current.id))) throw nameConflict(input.name);
      await checkMembers(tx, actor.accountId, input);
      const set = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.chat !== undefined ? { chatModelTier: input.chat } : {}),
        ...(input.task !== undefined ? { taskModelTier: input.task } : {}),
        ...(input.organizationIds !== undefined ? { organizationIds: unique(input.organizationIds) } : {}),
        ...(input.teamIds !== undefined ? { teamIds: unique(input.teamIds) } : {}),
        ...(input.userIds !== undefined ? { userIds: unique(input.userIds) } : {}),
      };
      if (!Object.keys(set).length) return current;
      const [updated] = await tx.update(modelTierSegments).set(set).where(eq(modelTierSegments.id, current.id)).returning();
      return updated;
    })
    .catch(mapUnique(input.name ?? ''));
  return { ok: true as const, segment: presentSegment(row) };
}

export async function deleteSegment(db: Db, actor: Actor, segmentId: string) {
  requireAccount(actor);
  const row = await segmentOf(db, actor, segmentId);
  await db.delete(modelTierSegments).where(eq(modelTierSegments.id, row.id));
  return { ok: true as const, deleted: true as const, id: row.id };
}

/**
 * The admin CLI's `set-segment`: creates the named segment or changes it (members given replace
 * the stored lists), with the same checks as the API.
 */
export async function setSegmentByName(db: Db, accountId: string, input: UpdateInput & { name: string }): Promise<ReturnType<typeof presentSegment>> {
  const [existing] = await db
    .select({ id: modelTierSegments.id })
    .from(modelTierSegments)
    .where(and(eq(modelTierSegments.accountId, accountId), eq(modelTierSegments.name, input.name)));
  const actor = consoleActor(accountId);
  const result = existing ? await updateSegment(db, actor, existing.id, input) : await createSegment(db, actor, input);
  return result.segment;
}

/** The console's caller for one account (the admin CLI acts account-wide). */
function consoleActor(accountId: string): Actor {
  return {
    accountId,
    credential: { kind: 'api_key', keyId: 'console' },
    level: 'account',
    organizationId: null,
    user: null,
    actingVia: null,
    scopes: [],
    account: { killSwitch: false, rateLimitReads: null, rateLimitWrites: null },
  };
}

const accountTiersOf = (row: { chatModelTier: string | null; taskModelTier: string | null } | undefined) => {
  const chat = (row?.chatModelTier ?? null) as ModelTierSegmentRow['chatModelTier'];
  const task = (row?.taskModelTier ?? null) as ModelTierSegmentRow['taskModelTier'];
  return { ok: true as const, modelTiers: { chat, task }, effective: { chat: chat ?? 'medium', task: task ?? 'medium' } };
};

/** GET /settings/model-tiers: the account's own defaults. */
export async function getAccountTiers(db: Db, actor: Actor) {
  requireAccount(actor);
  const [row] = await db.select().from(accountModelTiers).where(eq(accountModelTiers.accountId, actor.accountId));
  return accountTiersOf(row);
}

/** PATCH /settings/model-tiers: null clears a default (then `medium`). */
export async function setAccountTiers(db: Db, actor: Actor, input: z.infer<typeof AccountTiersBody>) {
  requireAccount(actor);
  const set = {
    ...(input.chat !== undefined ? { chatModelTier: input.chat } : {}),
    ...(input.task !== undefined ? { taskModelTier: input.task } : {}),
  };
  if (!Object.keys(set).length) return getAccountTiers(db, actor);
  const row = await db.transaction(async (tx) => {
    const [before] = await tx.select().from(accountModelTiers).where(eq(accountModelTiers.accountId, actor.accountId)).for('update');
    const [after] = await tx
      .insert(accountModelTiers)
      .values({ accountId: actor.accountId, chatModelTier: input.chat ?? null, taskModelTier: input.task ?? null })
      .onConflictDoUpdate({ target: accountModelTiers.accountId, set })
      .returning();
    const tiers = (r: typeof before | undefined) => ({ chat: r?.chatModelTier ?? null, task: r?.taskModelTier ?? null });
    await recordAudit(tx, actor, 'model_tiers.changed', { type: 'account', id: actor.accountId }, { before: tiers(before), after: tiers(after) });
    return after;
  });
  return accountTiersOf(row);
}
