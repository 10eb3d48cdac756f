import { and, asc, eq, isNotNull, lte } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { skills, workflowTriggerState, type SkillRow } from '@/db/schema';
import { fire } from '../firing';
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
 * (an index), whatever the number of workflows; each row is handled in its own transaction under
 * a row lock, so concurrent schedulers (several processes) never handle one twice.
 */
export async function runDueTriggers(db: Db, now = new Date(), limit = 1_000, parallel = 8): Promise<number> {
  const due = await db
    .select({ skillId: workflowTriggerState.skillId, triggerKey: workflowTriggerState.triggerKey })
    .from(workflowTriggerState)
    .where(and(isNotNull(workflowTriggerState.nextAt), lte(workflowTriggerState.nextAt, now)))
    .orderBy(asc(workflowTriggerState.nextAt))
    .limit(limit);
  let handled = 0;
  // A few rows at a time: a thousand workflows due at the same minute fire within seconds.
  let next = 0;
  const worker = async () => {
    while (next < due.length) {
      handled += await one(due[next++]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, due.length) }, worker));
  return handled;

  async function one(d: (typeof due)[number]): Promise<number> {
    return db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(workflowTriggerState)
        .where(and(eq(workflowTriggerState.skillId, d.skillId), eq(workflowTriggerState.triggerKey, d.triggerKey), lte(workflowTriggerState.nextAt, now)))
        .for('update', { skipLocked: true });
      if (!row) return 0;
      const [skill] = await tx.select().from(skills).where(eq(skills.id, row.skillId));
      if (!skill) return 0;
      await handle(tx as unknown as Db, skill, row, now);
      return 1;
    });
  }
}

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
      else await fire(db, { skillId: skill.id, userId, triggerKind: 'cron', eventKey: `cron:${placed.key}:${scheduled.toISOString()}`, payload: { scheduledFor: scheduled.toISOString() }, at: now });
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
