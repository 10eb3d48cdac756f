import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { skills, workflowTriggerState, type SkillRow } from '@/db/schema';
import { fire } from '../firing';
import { fireBatch, type BatchFiring } from '../firing-batch';
import { logger } from '@/server/logger';
import { conditionHolds } from './condition';
import { durationMs, type TriggerDef } from './contracts';
import { nextCronAt } from './cron';
import { fireNow } from './events';
import { CONDITION_EVERY_MS } from './sync';
import { find } from './walk';

type StateRow = typeof workflowTriggerState.$inferSelect;

/**
 * Everything due now: cron times, condition polls, inactivity windows that ran out, and firings
 * scheduled for later (delayOffset, timestamp offsets). Reads only rows whose `nextAt` has come
 * (an index), whatever the number of workflows. Rows are handled in chunks, each in a transaction
 * holding the rows and their skills locked (skipping rows another scheduler holds), so concurrent
 * schedulers never handle one twice; plain cron firings of a chunk go through the batch (a few
 * statements for the whole chunk), everything else row by row. A chunk that fails is retried row
 * by row in transactions of their own, so one bad row never holds the others back.
 */
export async function runDueTriggers(db: Db, now = new Date(), limit = 1_000, parallel = 4): Promise<number> {
  const due = await db
    .select({ skillId: workflowTriggerState.skillId, triggerKey: workflowTriggerState.triggerKey })
    .from(workflowTriggerState)
    .where(and(isNotNull(workflowTriggerState.nextAt), lte(workflowTriggerState.nextAt, now)))
    .orderBy(asc(workflowTriggerState.nextAt))
    .limit(limit);
  const chunks: DueRow[][] = [];
  for (let i = 0; i < due.length; i += CHUNK) chunks.push(due.slice(i, i + CHUNK));
  let next = 0;
  const counts = await Promise.all(
    Array.from({ length: Math.min(parallel, chunks.length) }, async () => {
      let n = 0;
      while (next < chunks.length) n += await chunk(db, chunks[next++]!, now);
      return n;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

type DueRow = { skillId: string; triggerKey: string };
// A thousand due at one minute fire in one wave of four transactions: runs dispatched by a chunk
// that committed compete for the CPU with the chunks still firing, so fewer, larger chunks.
const CHUNK = 250;

async function chunk(db: Db, rows: DueRow[], now: Date): Promise<number> {
  try {
    return await db.transaction((tx) => handleChunk(tx as unknown as Db, rows, now));
  } catch (err) {
    logger.warn({ err, rows: rows.length }, 'workflow scheduler: a chunk failed; handling its rows one by one');
    let n = 0;
    for (const row of rows) {
      n += await db.transaction((tx) => handleChunk(tx as unknown as Db, [row], now)).catch((e: unknown) => {
        logger.error({ err: e, skillId: row.skillId, triggerKey: row.triggerKey }, 'workflow scheduler: a trigger failed');
        return 0;
      });
    }
    return n;
  }
}

async function handleChunk(tx: Db, due: DueRow[], now: Date): Promise<number> {
  const keys = sql.join(
    due.map((d) => sql`(${d.skillId}, ${d.triggerKey})`),
    sql`, `,
  );
  const locked = await tx
    .select()
    .from(workflowTriggerState)
    .where(and(sql`(${workflowTriggerState.skillId}, ${workflowTriggerState.triggerKey}) IN (${keys})`, lte(workflowTriggerState.nextAt, now)))
    .for('update', { skipLocked: true });
  if (!locked.length) return 0;
  // The skills in a fixed order, so two chunks sharing a skill never wait on each other in a cycle.
  const skillRows = await tx
    .select()
    .from(skills)
    .where(inArray(skills.id, [...new Set(locked.map((r) => r.skillId))]))
    .orderBy(asc(skills.id))
    .for('update');
  const byId = new Map(skillRows.map((s) => [s.id, s]));

  const batch: BatchFiring[] = [];
  const nextTimes: { row: StateRow; nextAt: Date | null }[] = [];
  let handled = 0;
  for (const row of locked) {
    const skill = byId.get(row.skillId);
    if (!skill) continue;
    handled++;
    const placed = row.triggerKey.startsWith('d:') ? null : find(skill.triggers as TriggerDef[], row.triggerKey);
    const t = placed?.trigger;
    // A plain cron time of an enabled workflow without maxConcurrent: the batch.
    if (placed && !placed.parent && t?.on === 'cron' && skill.enabled && skill.maxConcurrent === null) {
      const scheduled = row.nextAt!;
      nextTimes.push({ row, nextAt: nextCronAt(t, now) });
      if (skill.ownerUserId) {
        batch.push({ skill, userId: skill.ownerUserId, ...cronFiring(placed.key, scheduled), at: now });
      }
      continue;
    }
    await handle(tx, skill, row, now);
  }
  if (nextTimes.length) {
    const values = sql.join(
      nextTimes.map(({ row, nextAt }) => sql`(${row.skillId}, ${row.triggerKey}, ${nextAt}::timestamptz)`),
      sql`, `,
    );
    await tx.execute(sql`
      UPDATE workflow_trigger_state t SET next_at = v.next_at, state = '{}'::jsonb, updated_at = now()
      FROM (VALUES ${values}) AS v(skill_id, trigger_key, next_at) WHERE t.skill_id = v.skill_id AND t.trigger_key = v.trigger_key`);
  }
  await fireBatch(tx, batch);
  return handled;
}

/** A cron time's firing: its key makes the same scheduled time fire once. */
const cronFiring = (key: string, scheduled: Date) => ({
  triggerKind: 'cron',
  eventKey: `cron:${key}:${scheduled.toISOString()}`,
  payload: { scheduledFor: scheduled.toISOString() },
});

const setNext = (db: Db, row: StateRow, nextAt: Date | null, state: Record<string, unknown>) =>
  db.update(workflowTriggerState).set({ nextAt, state }).where(and(eq(workflowTriggerState.skillId, row.skillId), eq(workflowTriggerState.triggerKey, row.triggerKey)));

async function handle(db: Db, skill: SkillRow, row: StateRow, now: Date): Promise<void> {
  if (row.triggerKey.startsWith('d:')) {
    // A firing scheduled for this time by an event.
    const [, key, ...rest] = row.triggerKey.split(':');
    const placed = find(skill.triggers as TriggerDef[], key!);
    await db.delete(workflowTriggerState).where(and(eq(workflowTriggerState.skillId, row.skillId), eq(workflowTriggerState.triggerKey, row.triggerKey)));
    const s = row.state as { userId: string; eventId: string; payload: Record<string, unknown> };
    if (placed) await fireNow(db, skill, placed, s.userId, `${rest.join(':')}@${row.nextAt!.toISOString()}`, { ...s.payload, scheduledFor: row.nextAt!.toISOString() }, now);
    return;
  }
  const placed = find(skill.triggers as TriggerDef[], row.triggerKey);
  if (!placed || !skill.enabled) {
    await setNext(db, row, null, row.state);
    return;
  }
  const t = placed.trigger;
  // Triggers that run on their own act for the workflow's owner; an app-wide workflow has none.
  const userId = skill.ownerUserId;
  if (t.on === 'cron') {
    const scheduled = row.nextAt!;
    await setNext(db, row, nextCronAt(t, now), {});
    if (userId) {
      if (placed.parent) await fireNow(db, skill, placed, userId, scheduled.toISOString(), { scheduledFor: scheduled.toISOString() }, now);
      else await fire(db, { skillId: skill.id, userId, ...cronFiring(placed.key, scheduled), at: now });
    }
  } else if (t.on === 'condition') {
    const every = t.every !== undefined ? durationMs(t.every) : CONDITION_EVERY_MS;
    const holds = userId ? await conditionHolds(db, t.expression, skill.accountId, userId, now) : false;
    const was = (row.state as { last?: boolean | null }).last;
    await setNext(db, row, new Date(now.getTime() + every), { last: holds });
    // Only the false→true edge fires; the first evaluation only learns the value.
    if (userId && holds && was === false) await fireNow(db, skill, placed, userId, now.toISOString(), { expression: t.expression }, now);
  } else if (t.on === 'inactivity') {
    const windowStart = String((row.state as { windowStart?: string }).windowStart ?? now.toISOString());
    await setNext(db, row, new Date(now.getTime() + durationMs(t.within)), { windowStart: now.toISOString() });
    if (userId) await fireNow(db, skill, placed, userId, windowStart, { event: t.event, quietSince: windowStart }, now);
  }
}
