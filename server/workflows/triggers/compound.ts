import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { workflowTriggerState, type SkillRow } from '@/db/schema';
import { fire } from '../firing';
import { durationMs } from './contracts';
import type { Placed } from './walk';

const DEFAULT_WITHIN_MS = 3_600_000;

/**
 * A part of a compound trigger fired. `or`: the compound fires. `and`: it fires once every part
 * has fired within `within` (default one hour) of the others; then it starts over.
 */
export async function compoundPart(tx: Tx, skill: SkillRow, placed: Placed, userId: string, ref: string, at: Date): Promise<void> {
  const parent = placed.parent!;
  if (parent.trigger.op === 'or') {
    await fire(tx, { skillId: skill.id, userId, triggerKind: 'compound', eventKey: `compound:${parent.key}:${placed.key}:${ref}`, payload: { part: placed.trigger.on, ref }, at });
    return;
  }
  const [row] = await tx
    .select()
    .from(workflowTriggerState)
    .where(and(eq(workflowTriggerState.skillId, skill.id), eq(workflowTriggerState.triggerKey, parent.key)))
    .for('update');
  if (!row) return;
  const within = parent.trigger.within !== undefined ? durationMs(parent.trigger.within) : DEFAULT_WITHIN_MS;
  const seen = { ...((row.state.seen ?? {}) as Record<string, string>), [String(parent.index)]: at.toISOString() };
  for (const [k, v] of Object.entries(seen)) if (at.getTime() - new Date(v).getTime() > within) delete seen[k];
  const complete = parent.trigger.triggers.every((_, j) => seen[String(j)]);
  await tx
    .update(workflowTriggerState)
    .set({ state: { seen: complete ? {} : seen } })
    .where(and(eq(workflowTriggerState.skillId, skill.id), eq(workflowTriggerState.triggerKey, parent.key)));
  if (complete) await fire(tx, { skillId: skill.id, userId, triggerKind: 'compound', eventKey: `compound:${parent.key}:${at.toISOString()}`, payload: { parts: seen }, at });
}
