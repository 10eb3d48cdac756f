import { assistantInactive } from '@/server/assistants/inactive';
import { and, desc, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { assistants, organizations, rosterEntries, taskActivities, tasks, users, type TaintSource, type TaskRow, type UserRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { conflict, forbidden, invalidFields } from '@/server/http/errors';
import { pageWindow } from '@/server/http/pagination';
import { deletableTask, ownTask, readableTask, requireAccountWide } from './access';
import { approvalView } from './approval-view';
import type { CreateTaskBody, ListTasksQuery, UpdateTaskBody } from './contracts';
import { applyChange } from './move';
import { toPublicActivity, toPublicTask } from './present';
import { cancelOpenRuns, hasStarted } from './runs';
import { handedTo } from './handed-off';
import { settleParent } from './subtasks';
import { accountDefaultTier } from '@/server/policy/segments-resolve';
import { plan, type TaskChange } from './transitions';
import { followersToStore } from './followers';
import { taintNote } from './taint';
import { signalTaskTimer } from './timers';
import { pendingCartColumn, pendingCartSummary, type PendingCartSummary } from '@/db/queries/carts';

const RECENT_ACTIVITY = 20;


/** An assistant on the user's roster, named by id or email; anything else is 403 (spec: task create). */
async function rosterAssistant(tx: Tx, user: UserRow, idOrEmail: string): Promise<string> {
  const [row] = await tx
    .select({ id: assistants.id, status: assistants.status })
    .from(rosterEntries)
    .innerJoin(assistants, eq(assistants.id, rosterEntries.assistantId))
    .where(
      and(
        eq(rosterEntries.userId, user.id),
        eq(assistants.accountId, user.accountId),
        isNull(assistants.deletedAt),
        or(eq(assistants.id, idOrEmail), eq(assistants.email, idOrEmail.toLowerCase())),
      ),
    )
    .limit(1);
  if (!row) throw forbidden("assistant: not on the user's roster");
  if (row.status === 'inactive') throw assistantInactive('assistant');
  return row.id;
}

/** The task's own tier, else the organization's task default, else the account's, else medium (spec: model tiers). */
async function initialTier(tx: Tx, user: UserRow, own: TaskRow['modelTier'] | undefined): Promise<TaskRow['modelTier']> {
  if (own) return own;
  if (user.organizationId) {
    const [org] = await tx.select({ tier: organizations.taskModelTier }).from(organizations).where(eq(organizations.id, user.organizationId));
    if (org?.tier) return org.tier;
  }
  return (await accountDefaultTier(tx, user.accountId, 'task')) ?? 'medium';
}

/**
 * Who creates a task: the user (POST /tasks), or the assistant during a run of one of the user's
 * tasks (create_task, create_subtasks: `createdBy: agent`, and held for the user's approval when
 * `needsApproval`; a subtask names its parent).
 */
export type TaskOrigin =
  | { createdBy: 'user' }
  | {
      createdBy: 'agent';
      needsApproval: boolean;
      parentTaskId: string | null;
      /** The tree of the task whose run creates it (STEWARD_TASK_TREE_MAX); null: a tree of its own. */
      rootTaskId?: string | null;
    };

const BY_USER: TaskOrigin = { createdBy: 'user' };

/**
 * A task as the API creates it, plus what only Steward sets: its id (known before the insert),
 * tags, and the untrusted content it starts from (a task created by a tainted run or an external
 * trigger starts tainted, tasks/taint.ts).
 */
type TaskInsert = z.infer<typeof CreateTaskBody> & { id?: string; tags?: string[]; taintSources?: TaintSource[] };

/**
 * The one way a task comes to exist, for the user's path and the assistant's: the assistant must
 * be on the owner's roster (403), the tier is resolved now, and the task is pending or scheduled
 * for a future time. Starting it is the caller's business: creating never starts a task.
 */
export async function insertTask(db: Tx, actor: Actor, input: TaskInsert, origin: TaskOrigin = BY_USER): Promise<TaskRow> {
  const [task] = await insertTasks(db, actor, [input], origin);
  return task!;
}

/**
 * The same for many tasks of one user in one statement (a thousand workflows firing at the same
 * minute): each distinct assistant and tier is resolved once, with the same checks. `tags` are
 * labels Steward sets (a workflow's tasks carry `workflow:<skillId>`), never taken from a request.
 */
export async function insertTasks(
  db: Tx,
  actor: Actor,
  inputs: readonly TaskInsert[],
  origin: TaskOrigin = BY_USER,
): Promise<TaskRow[]> {
  const user = requireUser(actor);
  if (!inputs.length) return [];
  const assistantIds = new Map<string, string>();
  const tiers = new Map<string, TaskRow['modelTier']>();
  for (const input of inputs) {
    if (!assistantIds.has(input.assistant)) assistantIds.set(input.assistant, await rosterAssistant(db, user, input.assistant));
    const own = input.modelTier ?? '';
    if (!tiers.has(own)) tiers.set(own, await initialTier(db, user, input.modelTier));
  }
  const created = await db
    .insert(tasks)
    .values(
      inputs.map((input) => {
        const status = input.status ?? 'pending';
        return {
          ...(input.id ? { id: input.id } : {}),
          accountId: actor.accountId,
          userId: user.id,
          assistantId: assistantIds.get(input.assistant)!,
          title: input.title,
          description: input.description ?? '',
          status,
          scheduledFor: status === 'scheduled' && input.scheduledFor ? new Date(input.scheduledFor) : null,
          modelTier: tiers.get(input.modelTier ?? '')!,
          skills: input.skills ?? [],
          followers: followersToStore(user.email, input.followers ?? []),
          onBehalfOf: (input.onBehalfOf ?? user.email).toLowerCase(),
          tags: input.tags ?? [],
          ...(input.taintSources?.length ? { tainted: true, taintSources: input.taintSources } : {}),
          ...(origin.createdBy === 'agent'
            ? {
                createdBy: 'agent' as const,
                parentTaskId: origin.parentTaskId,
                rootTaskId: origin.rootTaskId ?? null,
                proposalStatus: origin.needsApproval ? ('pending_user_approval' as const) : null,
              }
            : {}),
        };
      }),
    )
    .returning();
  // A scheduled task starts at its time: the engine is told (timers.ts).
  for (const t of created) if (t.status === 'scheduled') await signalTaskTimer(db, t);
  // A task born tainted says so on its own feed, as one that reads untrusted content later does.
  const born = created.filter((t) => t.tainted);
  if (born.length) {
    await db.insert(taskActivities).values(born.map((t) => ({ taskId: t.id, accountId: t.accountId, kind: 'system' as const, content: taintNote(t.taintSources) })));
  }
  return created;
}

/** POST /tasks. Creating does not start the task: pending, or scheduled for a future time. */
export async function createTask(db: Db, actor: Actor, input: z.infer<typeof CreateTaskBody>) {
  const task = await insertTask(db, actor, input);
  return { ok: true as const, task: toPublicTask(task, requireUser(actor).email) };
}

/** Newest first. A user lists their own; an account-wide key lists the account's, narrowed by ownerEmail. */
export async function listTasks(db: Db, actor: Actor, q: z.infer<typeof ListTasksQuery>) {
  const { limit, offset } = pageWindow(q);
  const page = (rows: { task: TaskRow; ownerEmail: string; pendingCart: PendingCartSummary | null }[]) => ({
    ok: true as const,
    tasks: rows.map((r) => toPublicTask(r.task, r.ownerEmail, r.pendingCart)),
    page: q.page,
    perPage: q.perPage,
  });
  // The common call, a user's own newest tasks, is one prepared statement (page, owner and carts).
  if (actor.user && !q.status && !q.assistant) {
    return page(await ownPage(db).execute({ accountId: actor.accountId, userId: actor.user.id, limit, offset }));
  }
  const filters: SQL[] = [eq(tasks.accountId, actor.accountId)];
  if (actor.user) filters.push(eq(tasks.userId, actor.user.id));
  else {
    requireAccountWide(actor);
    if (q.ownerEmail) filters.push(eq(users.email, q.ownerEmail.toLowerCase()));
  }
  if (q.status) filters.push(eq(tasks.status, q.status));
  if (q.assistant) filters.push(eq(tasks.assistantId, q.assistant));
  return page(await pageQuery(db, and(...filters)!).limit(limit).offset(offset));
}

const pageQuery = (db: Db, where: SQL) =>
  db
    .select({ task: tasks, ownerEmail: users.email, pendingCart: pendingCartColumn })
    .from(tasks)
    .innerJoin(users, eq(users.id, tasks.userId))
    .where(where)
    .orderBy(desc(tasks.createdAt), desc(tasks.id));

/** Built once per database handle: building a Drizzle query on every request costs more than running it. */
const ownPages = new WeakMap<Db, ReturnType<typeof prepareOwnPage>>();
const prepareOwnPage = (db: Db) =>
  pageQuery(db, and(eq(tasks.accountId, sql.placeholder('accountId')), eq(tasks.userId, sql.placeholder('userId')))!)
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .prepare('tasks_own_page');
function ownPage(db: Db) {
  let p = ownPages.get(db);
  if (!p) ownPages.set(db, (p = prepareOwnPage(db)));
  return p;
}

/** One task with its recent activity and what applies to its approvals. */
export async function getTask(db: Db, actor: Actor, id: string) {
  const { task, ownerEmail, ownerOrganizationId } = await readableTask(db, actor, id);
  const recent = await db
    .select()
    .from(taskActivities)
    .where(eq(taskActivities.taskId, task.id))
    .orderBy(desc(taskActivities.createdAt), desc(taskActivities.id))
    .limit(RECENT_ACTIVITY);
  return {
    ok: true as const,
    task: { ...toPublicTask(task, ownerEmail, await pendingCartSummary(db, task.id)), recentActivity: recent.map(toPublicActivity), ...(await approvalView(db, task, ownerOrganizationId)) },
  };
}

/** Owner only. A status goes through the transition table; the tier is fixed once a run has started. */
export async function updateTask(db: Db, actor: Actor, id: string, input: z.infer<typeof UpdateTaskBody>) {
  return db.transaction(async (tx) => {
    const { task, ownerEmail } = await ownTask(tx, actor, id, true);
    let change: TaskChange & Partial<TaskRow> = {};
    if (input.status !== undefined) {
      // A proposal the assistant holds for the user moves only by approve or decline (approval.ts).
      if (task.proposalStatus === 'pending_user_approval') {
        throw conflict('status: the task awaits approval; approve or decline it first', { taskStatus: task.status, proposalStatus: task.proposalStatus }, 'pending_approval');
      }
      change = plan(task, 'put_status', input.status);
      if (input.status === 'scheduled') {
        const at = input.scheduledFor ? new Date(input.scheduledFor) : task.scheduledFor;
        if (!at || at.getTime() <= Date.now()) throw invalidFields([{ field: 'scheduledFor', problem: 'a future time is required with status scheduled' }]);
        change.scheduledFor = at;
      }
    }
    if (input.scheduledFor !== undefined && input.status === undefined) {
      if (task.status !== 'scheduled') throw invalidFields([{ field: 'scheduledFor', problem: 'only a scheduled task has a start time (send status scheduled with it)' }]);
      change.scheduledFor = new Date(input.scheduledFor);
    }
    if (input.modelTier !== undefined && input.modelTier !== task.modelTier) {
      if (await hasStarted(tx, task.id)) throw conflict('modelTier: fixed after the first run', { taskStatus: task.status }, 'model_tier_fixed');
      change.modelTier = input.modelTier;
    }
    if (input.approvalMode !== undefined) change.approvalMode = input.approvalMode;
    if (input.handledBy !== undefined) {
      if (task.proposalStatus === 'pending_user_approval') {
        throw conflict('handledBy: the task awaits approval; approve or decline it first', { taskStatus: task.status, proposalStatus: task.proposalStatus }, 'pending_approval');
      }
      Object.assign(change, plan(task, 'hand_off', 'handled_by_other'), await handedTo(tx, task, input.handledBy));
      // Whoever took it does the work now: this task's own run stops.
      await cancelOpenRuns(tx, task.id);
    }
    const row = Object.keys(change).length ? await applyChange(tx, task, change, input.handledBy !== undefined ? 'hand_off' : 'put_status') : task;
    return { ok: true as const, task: toPublicTask(row, ownerEmail, await pendingCartSummary(tx, row.id)) };
  });
}

/**
 * Deletes the task with its activity, subtasks and run history (foreign keys cascade). A deleted
 * subtask counts as ended: its parent may be waiting for nothing else (subtasks.ts).
 */
export async function deleteTask(db: Db, actor: Actor, id: string) {
  return db.transaction(async (tx) => {
    const { task } = await deletableTask(tx, actor, id);
    await tx.delete(tasks).where(eq(tasks.id, task.id));
    if (task.parentTaskId) await settleParent(tx, task.parentTaskId, applyChange);
    return { ok: true as const, task: { id: task.id } };
  });
}

