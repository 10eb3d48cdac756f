import type { Tx } from '@/db/client';
import type { TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { limitsFor } from '@/server/accounts/limits';
import { AppError, invalidFields, notFound } from '@/server/http/errors';
import { tierForAgentCreated } from '@/server/policy/segments-resolve';
import { applyChange } from './move';
import { queueRun } from './runs';
import { insertTask } from './service';
import { MAX_SUBTASK_DEPTH, subtaskDepth } from './subtasks';
import { plan } from './transitions';
import { treeRoom } from './tree';

/*
 * Work the assistant hands on during a run (spec: create_task, create_subtasks). New tasks go
 * through insertTask like the user's own (roster, tier), as the owner of the task whose run
 * creates them, so the assistant can create nothing its user could not. A new task carries no
 * conversation of the task that created it: it starts from its own title and description.
 *
 * Two rules hold whatever the model does: a task joins its creator's tree, and a tree holds at
 * most STEWARD_TASK_TREE_MAX tasks over all levels and wakes (tree.ts); and a tainted creator
 * (its runs read untrusted content, or an external trigger started it) only proposes: what it
 * creates waits for the user's approval and carries the creator's taint.
 */

/** How long a parent waits on its subtasks before its alarm wakes it to check on them. */
export const SUBTASKS_FOLLOW_UP_MS = 24 * 3_600_000;

/** The most subtasks one create_subtasks call makes. */
export const MAX_SUBTASKS = 20;

/** Only the owner's own run creates tasks for the owner: anyone else does not reach the task (404). */
function requireOwner(actor: UserActor, task: TaskRow): void {
  if (actor.user.id !== task.userId || actor.accountId !== task.accountId) throw notFound('Task');
}

export type AgentTaskInput = { title: string; description?: string; needsApproval?: boolean; scheduledFor?: Date; modelTier?: TaskRow['modelTier'] };

/**
 * create_task: a task of the same owner and assistant (and skills[]), `createdBy: agent`. With needsApproval it
 * is held (proposalStatus pending_user_approval) until POST /tasks/{id}/approve (approval.ts);
 * otherwise it is queued to run at once, or waits for scheduledFor like any scheduled task.
 */
export async function createAgentTask(tx: Tx, actor: UserActor, creator: TaskRow, input: AgentTaskInput, now = new Date()): Promise<TaskRow> {
  requireOwner(actor, creator);
  if (input.scheduledFor && input.scheduledFor.getTime() <= now.getTime()) throw invalidFields([{ field: 'scheduledFor', problem: 'must be in the future' }]);
  // Only a task the user created may start another one unasked: a task the assistant created
  // (or a subtask) proposes, so a runaway assistant cannot multiply work without a person; so
  // does one whose runs read untrusted content (its request may be an attacker's).
  const needsApproval = input.needsApproval === true || creator.createdBy === 'agent' || creator.parentTaskId !== null || creator.tainted;
  const tree = await treeRoom(tx, creator, await limitsFor(tx, creator.accountId));
  if (tree.room < 1) throw treeFull(tree.max);
  const task = await insertTask(
    tx,
    actor,
    {
      title: input.title,
      description: input.description,
      assistant: creator.assistantId,
      status: input.scheduledFor ? 'scheduled' : 'pending',
      scheduledFor: input.scheduledFor?.toISOString(),
      // A task the agent creates itself: a matching segment's default before the organization's (spec: Model tiers).
      modelTier: input.modelTier ?? (await tierForAgentCreated(tx, { accountId: actor.accountId, userId: actor.user.id, kind: 'task' })),
      // The creator's skills[]: a task limited to some skills cannot widen them by creating another.
      skills: creator.skills,
      taintSources: creator.tainted ? creator.taintSources : undefined,
    },
    { createdBy: 'agent', needsApproval, parentTaskId: null, rootTaskId: tree.rootId },
  );
  // Queued in the pending status: the run's first step starts the task (start-run.ts).
  if (!needsApproval && task.status === 'pending') await queueRun(tx, task, 'process');
  return task;
}

const treeFull = (max: number) =>
  new AppError(
    409,
    'task_tree_limit',
    `This task's tree already holds ${max} tasks, the most one tree may hold (all levels and wakes together): no further task was created. Do the rest of the work in this task, or tell the user.`,
  );

/**
 * create_subtasks: children of the running task (same owner, assistant and tier; its skills,
 * followers and the person it acts for), each queued to run; the parent then waits in
 * `subtasks_running` with an alarm SUBTASKS_FOLLOW_UP_MS ahead, and wakes when every child has
 * ended (subtasks.ts) or when the alarm fires, whichever comes first. A tree with room for fewer
 * than asked gets the first ones (`notCreated` counts the rest); a full tree refuses. A tainted
 * parent's children are proposals: each waits for the user's approval before it runs.
 */
export async function createSubtasks(
  tx: Tx,
  actor: UserActor,
  parent: TaskRow,
  items: { title: string; description: string }[],
  now = new Date(),
): Promise<{ parent: TaskRow; children: TaskRow[]; notCreated: number; treeMax: number }> {
  requireOwner(actor, parent);
  if (!items.length || items.length > MAX_SUBTASKS) throw invalidFields([{ field: 'subtasks', problem: `must hold 1 to ${MAX_SUBTASKS} subtasks` }]);
  const wakeAt = new Date(now.getTime() + SUBTASKS_FOLLOW_UP_MS);
  const headline = `Check on ${items.length} subtask${items.length === 1 ? '' : 's'}`;
  // Planned first: a parent that cannot wait (not executing) is refused before any child exists.
  const waiting = plan(parent, 'wait', 'subtasks_running', { wakeAt, headline }, now);
  if ((await subtaskDepth(tx, parent)) + 1 > MAX_SUBTASK_DEPTH) {
    throw new AppError(409, 'subtask_depth_exceeded', `Subtasks nest at most ${MAX_SUBTASK_DEPTH} levels deep; do this part of the work in this task`);
  }
  const tree = await treeRoom(tx, parent, await limitsFor(tx, parent.accountId));
  if (tree.room < 1) throw treeFull(tree.max);
  const accepted = items.slice(0, tree.room);
  const proposals = parent.tainted;
  const children: TaskRow[] = [];
  for (const item of accepted) {
    const child = await insertTask(
      tx,
      actor,
      {
        title: item.title,
        description: item.description,
        assistant: parent.assistantId,
        modelTier: parent.modelTier,
        skills: parent.skills,
        followers: parent.followers,
        onBehalfOf: parent.onBehalfOf,
        taintSources: parent.tainted ? parent.taintSources : undefined,
      },
      { createdBy: 'agent', needsApproval: proposals, parentTaskId: parent.id, rootTaskId: tree.rootId },
    );
    children.push(child);
  }
  const waitingParent = await applyChange(tx, parent, waiting, 'wait');
  if (!proposals) for (const child of children) await queueRun(tx, child, 'process');
  return { parent: waitingParent, children, notCreated: items.length - accepted.length, treeMax: tree.max };
}
