import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { newId } from '@/db/schema/columns';
import { assistants, workflowFirings, type SkillRow, type WorkflowFiringRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { queueRuns } from '@/server/tasks/runs';
import { insertTasks } from '@/server/tasks/service';
import { firingTask, ownerOf, skipReason, workflowTag, type Firing } from './firing';

/** A firing of a workflow whose row the caller holds locked (`SELECT … FOR UPDATE`). */
export type BatchFiring = Omit<Firing, 'skillId' | 'at'> & { skill: SkillRow; at: Date };

type Settled = { id: string; status: WorkflowFiringRow['status']; reason: string | null; taskId: string | null };

/**
 * `fire` for many firings at once, with a statement per step instead of per firing: a thousand
 * workflows due at the same minute fire in a few round trips. Same rules, in the same order:
 * the event key fires once, skips (disabled, recurrence ended, maxRuns, cooldown) are recorded
 * with their reason, a task is created through the tasks service's insert for its owner and its
 * run queued. Only for workflows without `maxConcurrent` (the caller sends those through `fire`,
 * which counts the running tasks); the skills must already be locked by the caller.
 */
export async function fireBatch(tx: Tx, items: readonly BatchFiring[]): Promise<number> {
  if (!items.length) return 0;
  const inserted = await tx
    .insert(workflowFirings)
    .values(
      items.map((f) => ({
        skillId: f.skill.id,
        accountId: f.skill.accountId,
        userId: f.userId,
        triggerKind: f.triggerKind,
        eventKey: f.eventKey,
        payload: f.payload ?? {},
        dueAt: f.at,
        // When this firing really happened, not when the batch's transaction began.
        createdAt: sql`clock_timestamp()`,
      })),
    )
    .onConflictDoNothing()
    .returning();
  const byKey = new Map(inserted.map((row) => [`${row.skillId}\n${row.eventKey}`, row]));

  // Owners first: usually one user with many workflows, or one app-wide workflow for many users.
  const owners = new Map<string, UserActor | null>();
  for (const f of items) {
    const key = `${f.skill.accountId}\n${f.userId}`;
    if (!owners.has(key)) owners.set(key, await ownerOf(tx, f.skill.accountId, f.userId));
  }

  // An inactive assistant takes no new work (issue 46): its owner's firings are skipped, not failed with the batch.
  const primaries = [...new Set([...owners.values()].map((o) => o?.user.primaryAssistantId).filter((id): id is string => Boolean(id)))];
  const inactive = new Set(
    primaries.length ? (await tx.select({ id: assistants.id }).from(assistants).where(and(inArray(assistants.id, primaries), eq(assistants.status, 'inactive')))).map((r) => r.id) : [],
  );

  // The limits, asked per firing in `fire`'s order, counting the firings of this batch as they start.
  const skills = new Map<string, SkillRow>();
  const settled: Settled[] = [];
  const byOwner = new Map<string, { firing: WorkflowFiringRow; skill: SkillRow }[]>();
  const fired = new Map<string, number>();
  for (const f of items) {
    const firing = byKey.get(`${f.skill.id}\n${f.eventKey}`);
    if (!firing) continue; // the same event already fired
    const skill = skills.get(f.skill.id) ?? { ...f.skill };
    skills.set(skill.id, skill);
    const key = `${skill.accountId}\n${f.userId}`;
    const primary = owners.get(key)?.user.primaryAssistantId;
    const reason = skipReason(skill, f.at) ?? (!primary ? 'owner_cannot_act' : inactive.has(primary) ? 'assistant_inactive' : null);
    if (reason) {
      settled.push({ id: firing.id, status: 'skipped', reason, taskId: null });
      continue;
    }
    skill.runCount += 1;
    skill.lastFiredAt = f.at;
    fired.set(skill.id, (fired.get(skill.id) ?? 0) + 1);
    const list = byOwner.get(key) ?? [];
    list.push({ firing, skill });
    byOwner.set(key, list);
  }

  // The tasks, one statement per owner, and their runs.
  for (const [key, list] of byOwner) {
    const actor = owners.get(key)!;
    const assistant = actor.user.primaryAssistantId!;
    const inputs = list.map(({ firing, skill }) => ({ id: newId(), ...firingTask(skill, firing), assistant, tags: [workflowTag(skill.id)] }));
    await queueRuns(tx, await insertTasks(tx, actor, inputs), 'process');
    list.forEach(({ firing }, i) => settled.push({ id: firing.id, status: 'started', reason: null, taskId: inputs[i]!.id }));
  }

  if (settled.length) {
    const rows = sql.join(
      settled.map((s) => sql`(${s.id}, ${s.status}, ${s.reason}::text, ${s.taskId}::text)`),
      sql`, `,
    );
    await tx.execute(sql`
      UPDATE workflow_firings f SET status = v.status, reason = v.reason, task_id = v.task_id, updated_at = now()
      FROM (VALUES ${rows}) AS v(id, status, reason, task_id) WHERE f.id = v.id`);
  }
  if (fired.size) {
    const rows = sql.join(
      [...fired].map(([id, n]) => sql`(${id}, ${n}::int, ${skills.get(id)!.lastFiredAt}::timestamptz)`),
      sql`, `,
    );
    await tx.execute(sql`
      UPDATE skills s SET run_count = s.run_count + v.n, last_fired_at = v.at, updated_at = now()
      FROM (VALUES ${rows}) AS v(id, n, at) WHERE s.id = v.id`);
  }
  return inserted.length;
}
