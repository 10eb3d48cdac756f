import { and, asc, count, eq, notInArray, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { accounts, skills, tasks, users, workflowFirings, type SkillRow, type TaintSource, type WorkflowFiringRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { recordActivities } from '@/server/tasks/activities';
import { ENDED_STATUSES } from '@/server/tasks/ended';
import { queueRun } from '@/server/tasks/runs';
import { insertTask } from '@/server/tasks/service';
import type { TriggerDef } from './triggers/contracts';
import { walk } from './triggers/walk';

export type Firing = {
  skillId: string;
  /** Whose task it creates: the workflow's owner, or for an app-wide workflow the user the event is about. */
  userId: string;
  triggerKind: string;
  /** Makes the firing idempotent: the same cron minute, calendar event and offset, or email fire once. */
  eventKey: string;
  payload?: Record<string, unknown>;
  at?: Date;
};

export type FiringOutcome = { status: WorkflowFiringRow['status']; reason: string | null; firingId: string | null; taskId: string | null };

export const workflowTag = (skillId: string) => `workflow:${skillId}`;

/** The workflow's tasks still at work (not ended): what maxConcurrent counts. */
async function running(tx: Tx, skillId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(tasks)
    .where(and(sql`${tasks.tags} @> ARRAY[${workflowTag(skillId)}]::text[]`, notInArray(tasks.status, [...ENDED_STATUSES])));
  return row?.n ?? 0;
}

/** The owner acting on their own behalf, with a user's rights only. */
export async function ownerOf(tx: Tx, accountId: string, userId: string): Promise<UserActor | null> {
  const [row] = await tx
    .select({ user: users, killSwitch: accounts.killSwitch })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(and(eq(users.id, userId), eq(users.accountId, accountId)));
  // A frozen account creates no task (the kill switch refuses POST /tasks the same way).
  if (!row || row.user.status !== 'active' || row.killSwitch) return null;
  return { accountId, credential: { kind: 'agent', taskId: '', runId: '' }, level: 'user', organizationId: null, user: row.user, actingVia: null, scopes: [], account: { killSwitch: false, rateLimitReads: null, rateLimitWrites: null } };
}

/**
 * A firing becomes a task of the user, through the same insert as POST /tasks: the workflow's
 * title, its instructions as the description, the `workflow:<id>` tag, the user's primary
 * assistant; and it starts at once. Nothing is created for a user who cannot act or has no assistant.
 */
async function startTask(tx: Tx, skill: SkillRow, firing: WorkflowFiringRow): Promise<string | null> {
  const actor = await ownerOf(tx, skill.accountId, firing.userId);
  const assistant = actor?.user.primaryAssistantId;
  if (!actor || !assistant) return null;
  const external = externalTrigger(skill, firing);
  const task = await insertTask(tx, actor, {
    ...firingTask(skill, firing, external !== null),
    assistant,
    tags: [workflowTag(skill.id)],
    taintSources: external ? [external] : undefined,
  });
  // What fired it reaches the model only as untrusted data, never as the task's own words.
  if (external) await recordActivities(tx, task, [{ kind: 'event', platform: external.ref, content: JSON.stringify(firing.payload, null, 2) }]);
  await queueRun(tx, task, 'process');
  return task.id;
}

/**
 * An external trigger: the event came from outside the owner (mail to the assistant, a calendar
 * event the customer posted, a compound that listens for one). Its task is tainted from the start
 * (tasks/taint.ts): it may read and draft, but what it sends to others waits for a person.
 */
export function externalTrigger(skill: Pick<SkillRow, 'triggers'>, firing: Pick<WorkflowFiringRow, 'payload' | 'triggerKind' | 'eventKey'>): TaintSource | null {
  const kinds = new Set(walk(skill.triggers as TriggerDef[]).map((p) => p.trigger.on));
  const external = firing.triggerKind === 'webhook' || firing.triggerKind === 'timestamp' || (firing.triggerKind === 'compound' && (kinds.has('webhook') || kinds.has('timestamp')));
  if (!external) return null;
  const p = firing.payload as Record<string, unknown>;
  const event = typeof p.event === 'string' ? p.event : firing.triggerKind;
  const from = typeof p.from === 'string' ? ` from ${p.from}` : '';
  return { kind: 'trigger', ref: `${event}${from}` };
}

/**
 * What a firing's task says: the workflow's title and instructions; what fired it, for a trigger
 * of Steward's own (a cron minute, another workflow's end), as data after them. An external
 * trigger's payload is not put here: it becomes the task's `event` activity, read as untrusted data.
 */
export function firingTask(skill: SkillRow, firing: Pick<WorkflowFiringRow, 'payload' | 'triggerKind'>, external = false): { title: string; description: string } {
  const context = !external && Object.keys(firing.payload).length ? `\n\nWhat fired it (${firing.triggerKind}), as data:\n${JSON.stringify(firing.payload, null, 2)}` : '';
  return { title: skill.title ?? skill.name, description: `${skill.instructions ?? skill.description ?? ''}${context}`.trim() };
}

/** Why a firing of this workflow is skipped at `at`, if it is (`fire` and the batch ask the same questions in the same order). */
export function skipReason(skill: Pick<SkillRow, 'enabled' | 'recurrenceEndsAt' | 'maxRuns' | 'runCount' | 'cooldownMs' | 'lastFiredAt'>, at: Date): string | null {
  if (!skill.enabled) return 'disabled';
  if (skill.recurrenceEndsAt && at > skill.recurrenceEndsAt) return 'recurrence_ended';
  if (skill.maxRuns !== null && skill.runCount >= skill.maxRuns) return 'max_runs_reached';
  if (skill.cooldownMs && skill.lastFiredAt && at.getTime() - skill.lastFiredAt.getTime() < skill.cooldownMs) return 'cooldown';
  return null;
}

/**
 * Fires a workflow once for one event, under a lock on the skill so concurrent firings see one
 * another: disabled, ended (`recurrenceEndsAt`), used up (`maxRuns`) or cooling down
 * (`cooldownMs`) firings are `skipped` with the reason; a firing beyond `maxConcurrent` is
 * handled by `overflowBehavior` — `queue` waits its turn, `drop` is dropped, `replace` takes the
 * place of the workflow's waiting firings. The same event key fires once.
 */
export async function fire(tx: Tx, f: Firing): Promise<FiringOutcome> {
  const at = f.at ?? new Date();
  const [skill] = await tx.select().from(skills).where(eq(skills.id, f.skillId)).for('update');
  if (!skill || skill.kind !== 'workflow') return { status: 'skipped', reason: 'not_a_workflow', firingId: null, taskId: null };
  const [firing] = await tx
    .insert(workflowFirings)
    .values({ skillId: skill.id, accountId: skill.accountId, userId: f.userId, triggerKind: f.triggerKind, eventKey: f.eventKey, payload: f.payload ?? {}, dueAt: at })
    .onConflictDoNothing()
    .returning();
  if (!firing) {
    const [prior] = await tx.select().from(workflowFirings).where(and(eq(workflowFirings.skillId, skill.id), eq(workflowFirings.eventKey, f.eventKey)));
    return { status: prior!.status, reason: 'duplicate', firingId: prior!.id, taskId: prior!.taskId };
  }
  const skip = (reason: string) => settle(tx, firing.id, 'skipped', reason);
  const reason = skipReason(skill, at);
  if (reason) return skip(reason);
  if (skill.maxConcurrent !== null && (await running(tx, skill.id)) >= skill.maxConcurrent) {
    if (skill.overflowBehavior === 'drop') return settle(tx, firing.id, 'dropped', 'max_concurrent');
    if (skill.overflowBehavior === 'replace') {
      await tx
        .update(workflowFirings)
        .set({ status: 'replaced', reason: `replaced by ${firing.id}` })
        .where(and(eq(workflowFirings.skillId, skill.id), eq(workflowFirings.status, 'queued'), sql`${workflowFirings.id} <> ${firing.id}`));
    }
    return { status: 'queued', reason: 'max_concurrent', firingId: firing.id, taskId: null };
  }
  return begin(tx, skill, firing, at);
}

async function begin(tx: Tx, skill: SkillRow, firing: WorkflowFiringRow, at: Date): Promise<FiringOutcome> {
  const taskId = await startTask(tx, skill, firing);
  if (!taskId) return settle(tx, firing.id, 'skipped', 'owner_cannot_act');
  await tx.update(workflowFirings).set({ status: 'started', taskId, reason: null }).where(eq(workflowFirings.id, firing.id));
  await tx.update(skills).set({ runCount: sql`${skills.runCount} + 1`, lastFiredAt: at }).where(eq(skills.id, skill.id));
  return { status: 'started', reason: null, firingId: firing.id, taskId };
}

async function settle(tx: Tx, id: string, status: WorkflowFiringRow['status'], reason: string): Promise<FiringOutcome> {
  await tx.update(workflowFirings).set({ status, reason }).where(eq(workflowFirings.id, id));
  return { status, reason, firingId: id, taskId: null };
}

/**
 * One of the workflow's tasks ended: its oldest waiting firing starts if the limits still allow
 * (a firing that waited past maxRuns or the end of the recurrence is skipped instead).
 */
export async function startQueued(tx: Tx, skillId: string, at = new Date()): Promise<void> {
  const [skill] = await tx.select().from(skills).where(eq(skills.id, skillId)).for('update');
  if (!skill) return;
  const waiting = await tx.select().from(workflowFirings).where(and(eq(workflowFirings.skillId, skillId), eq(workflowFirings.status, 'queued'))).orderBy(asc(workflowFirings.createdAt)).limit(1);
  const next = waiting[0];
  if (!next) return;
  if (!skill.enabled || (skill.recurrenceEndsAt && at > skill.recurrenceEndsAt) || (skill.maxRuns !== null && skill.runCount >= skill.maxRuns)) {
    await settle(tx, next.id, 'skipped', 'limits_reached_while_queued');
    return;
  }
  if (skill.maxConcurrent !== null && (await running(tx, skill.id)) >= skill.maxConcurrent) return;
  await begin(tx, skill, next, at);
}

/** Which workflows a task belongs to, from its tags. */
export const workflowsOf = (task: { tags: string[] }) => task.tags.filter((t) => t.startsWith('workflow:')).map((t) => t.slice('workflow:'.length));

