import { and, desc, eq, isNull } from 'drizzle-orm';
import type { ModelMessage } from 'ai';
import type { Db } from '@/db/client';
import { assistants, taskActivities, taskRuns, type TaintSource, type TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { cartOutcomeNotes } from '@/server/approvals/outcomes';
import { subtaskReports } from '@/server/tasks/subtasks';
import { getScheduling } from '@/server/users/scheduling';
import { conversationMessages } from './conversation';
import { benchSwitches } from './bench-switches';
import { memoriesForRun, memoriesMessage } from './memories';
import { activityTaint, subtaskTaint } from './taint';
import { systemMessage } from './system-message';
import { subtasksMessage, wakeNote } from './wake-note';

/** The newest activities a run replays; older ones are summarised by the task's plan and summary. */
const MAX_ACTIVITIES = 400;

/** The task as the first user message: its title and description exactly as the user wrote them. */
export const taskMessage = (task: Pick<TaskRow, 'title' | 'description'>) =>
  task.description ? `Task: ${task.title}\n\n${task.description}` : `Task: ${task.title}`;

/**
 * What the model sees on every call of a run, in the contract's order (spec: What the model
 * sees): the system message (with why this run started, when an alarm, the subtasks or a cart's
 * outcome woke it, and the outcomes of carts since the previous run),
 * the owner's memories, the task, then its conversation so far (the newest user message last, as
 * it was recorded). A task with subtasks also gets their report, as untrusted data, between the
 * earlier runs' conversation and this run's. Everything is read as the task's owner; a task's
 * conversation is its own only (a subtask never sees its parent's). `taint` lists every part of it
 * that came from outside the owner (taint.ts): the caller records it before the model reads it.
 */
export async function runContext(db: Db, actor: UserActor, task: TaskRow, now: Date): Promise<{ system: string; messages: ModelMessage[]; taint: TaintSource[] }> {
  const [[assistant], scheduling, memories, activities, [run], subtasks] = await Promise.all([
    db
      .select()
      .from(assistants)
      .where(and(eq(assistants.id, task.assistantId), eq(assistants.accountId, task.accountId), isNull(assistants.deletedAt))),
    getScheduling(db, actor, actor.user.id),
    memoriesForRun(db, actor),
    db
      .select()
      .from(taskActivities)
      .where(eq(taskActivities.taskId, task.id))
      .orderBy(desc(taskActivities.createdAt), desc(taskActivities.id))
      .limit(MAX_ACTIVITIES),
    // The run this context is for: the task's one running run.
    db
      .select({ id: taskRuns.id, trigger: taskRuns.trigger })
      .from(taskRuns)
      .where(and(eq(taskRuns.taskId, task.id), eq(taskRuns.status, 'running')))
      .orderBy(desc(taskRuns.startedAt))
      .limit(1),
    subtaskReports(db, task),
  ]);
  const carts = run ? await cartOutcomeNotes(db, task.id, run.id) : [];
  activities.reverse();
  const workingHours = scheduling.schedulingPreferences.availability.workingHours as Parameters<typeof systemMessage>[0]['workingHours'];
  // The system message travels in the SDK's `system` option: it is sent first, and only Steward writes it.
  const system = systemMessage({
    assistant: assistant ?? null,
    user: actor.user,
    workingHours,
    now,
    wakeNote: wakeNote(task, run?.trigger ?? null, subtasks, actor.user.timezone, carts),
  });
  const messages: ModelMessage[] = [];
  const remembered = memoriesMessage(memories);
  if (remembered) messages.push({ role: 'user', content: remembered });
  messages.push({ role: 'user', content: taskMessage(task) });
  const current = run ? activities.findIndex((a) => a.runId === run.id) : -1;
  const [before, during] = current < 0 ? [activities, []] : [activities.slice(0, current), activities.slice(current)];
  messages.push(...conversationMessages(before));
  if (subtasks.length) messages.push({ role: 'user', content: subtasksMessage(subtasks) });
  messages.push(...conversationMessages(during));
  const taint = benchSwitches.trustChecks ? [...activityTaint(activities), ...subtaskTaint(subtasks), ...memories.taint] : [];
  return { system, messages, taint };
}
