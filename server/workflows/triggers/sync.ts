import { and, eq, notLike } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { workflowTriggerState, type SkillRow } from '@/db/schema';
import { durationMs, type TriggerDef } from './contracts';
import { nextCronAt } from './cron';
import { walk } from './walk';

/** How often a condition is evaluated when the trigger names no `every`. */
export const CONDITION_EVERY_MS = 5 * 60_000;

/**
 * Keeps a workflow's scheduled trigger rows in step with its definition: a row per cron,
 * condition and inactivity trigger (compound parts included) with its next due time, and one per
 * compound for the parts it has seen. Called in the transaction that creates or changes the
 * skill; delayed firings already waiting (`d:` rows) are left to fire as promised.
 */
export async function syncTriggerState(tx: Tx, skill: SkillRow, now = new Date()): Promise<void> {
  await tx.delete(workflowTriggerState).where(and(eq(workflowTriggerState.skillId, skill.id), notLike(workflowTriggerState.triggerKey, 'd:%')));
  if (skill.kind !== 'workflow' || !skill.enabled) return;
  const rows = walk(skill.triggers as TriggerDef[]).flatMap(({ key, trigger }) => {
    const row = { skillId: skill.id, accountId: skill.accountId, triggerKey: key };
    if (trigger.on === 'cron') return [{ ...row, nextAt: nextCronAt(trigger, now), state: {} }];
    if (trigger.on === 'condition') return [{ ...row, nextAt: now, state: { last: null } }];
    if (trigger.on === 'inactivity') return [{ ...row, nextAt: new Date(now.getTime() + durationMs(trigger.within)), state: { windowStart: now.toISOString() } }];
    if (trigger.on === 'compound') return [{ ...row, nextAt: null, state: { seen: {} } }];
    return [];
  });
  if (rows.length) await tx.insert(workflowTriggerState).values(rows);
}
