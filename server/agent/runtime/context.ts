import { and, desc, eq, isNull } from 'drizzle-orm';
import type { ModelMessage } from 'ai';
import type { Db } from '@/db/client';
import { assistants, taskActivities, taskRuns, type TaintSource, type TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { cartOutcomeNotes } from '@/server/approvals/outcomes';
import { subtaskReports } from '@/server/tasks/subtasks';
import { getScheduling } from '@/server/users/scheduling';
import { conversationMessages } from './conversation';
import { conversationFiles, tierSeesImages } from '@/server/files/attached';
import { skillSections, skillsSection } from '@/server/workflows/skill-context';
import { benchSwitches } from './bench-switches';
import { personaFor } from './persona';
import { memoriesMessage, noMemories, recallForRun } from './memories';
import { taskRecallInput } from './recall-subject';
import { strangerOf } from '@/server/tasks/strangers';
import { activityTaint, subtaskTaint } from './taint';
import { systemMessage } from './system-message';
import { subtasksMessage, wakeNote } from './wake-note';

/** The newest activities a run replays; older ones are summarised by the task's plan and summary. */
const MAX_ACTIVITIES = 400;

/** An image shown to the model is a document's content: outside content, like read_file's text. */
const imageTaint = (ids: Iterable<string>): TaintSource[] => [...ids].map((ref) => ({ kind: 'file' as const, ref }));

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
  // A conversation with a stranger reads nothing private of the owner (tasks/strangers.ts): no memories, no files, no mailbox.
  const stranger = strangerOf(task);
  // Read once (a query builder runs again on every then): the conversation, and what recall takes from it.
  const newestActivities = Promise.resolve(
    db.select().from(taskActivities).where(eq(taskActivities.taskId, task.id)).orderBy(desc(taskActivities.createdAt), desc(taskActivities.id)).limit(MAX_ACTIVITIES),
  );
  const [[assistant], scheduling, memories, activities, [run], subtasks] = await Promise.all([
    db
      .select()
      .from(assistants)
      .where(and(eq(assistants.id, task.assistantId), eq(assistants.accountId, task.accountId), isNull(assistants.deletedAt))),
    getScheduling(db, actor, actor.user.id),
    // Recall: the memories relevant to the task and its latest messages, pinned ones, recent ones (memories.ts).
    stranger ? Promise.resolve(noMemories()) : newestActivities.then((newest) => recallForRun(db, actor, taskRecallInput(task, [...newest].reverse()), now)),
    newestActivities,
    // The run this context is for: the task's one running run.
    db
      .select({ id: taskRuns.id, trigger: taskRuns.trigger })
      .from(taskRuns)
      .where(and(eq(taskRuns.taskId, task.id), eq(taskRuns.status, 'running')))
      .orderBy(desc(taskRuns.startedAt))
      .limit(1),
    subtaskReports(db, task),
  ]);
  const [carts, persona, skills] = await Promise.all([
    run ? cartOutcomeNotes(db, task.id, run.id) : Promise.resolve([]),
    personaFor(db, assistant ?? null, actor.user),
    // The user's and the account's instructions and prompt skills; a stranger conversation gets none of the owner's configuration.
    stranger ? Promise.resolve([]) : skillSections(db, { accountId: task.accountId, userId: task.userId }, task.skills),
  ]);
  activities.reverse();
  // The files the conversation carries, read as the owner: named where attached, images shown to a tier that sees them.
  // A stranger conversation is shown none of the owner's files, whoever attached them.
  const attached = await conversationFiles(db, actor, stranger ? [] : activities.flatMap((a) => a.fileIds ?? []), tierSeesImages(task.modelTier));
  const workingHours = scheduling.schedulingPreferences.availability.workingHours as Parameters<typeof systemMessage>[0]['workingHours'];
  // The system message travels in the SDK's `system` option: it is sent first, and only Steward writes it.
  const system = systemMessage({
    assistant: assistant ?? null,
    user: actor.user,
    workingHours,
    now,
    wakeNote: wakeNote(task, run?.trigger ?? null, subtasks, actor.user.timezone, carts),
    // A stranger conversation knows nothing of the owner's organization or team either.
    persona: stranger ? [] : persona.lines,
    skills: skillsSection(skills),
    // The run answers someone else: it is told it holds nothing of the owner's (messaging/audience.ts).
    contactFacing: stranger,
  });
  const messages: ModelMessage[] = [];
  const remembered = memoriesMessage(memories);
  if (remembered) messages.push({ role: 'user', content: remembered });
  messages.push({ role: 'user', content: taskMessage(task) });
  const current = run ? activities.findIndex((a) => a.runId === run.id) : -1;
  const [before, during] = current < 0 ? [activities, []] : [activities.slice(0, current), activities.slice(current)];
  messages.push(...conversationMessages(before, attached));
  if (subtasks.length) messages.push({ role: 'user', content: subtasksMessage(subtasks) });
  messages.push(...conversationMessages(during, attached));
  const taint = benchSwitches.trustChecks ? [...activityTaint(activities), ...subtaskTaint(subtasks), ...memories.taint, ...imageTaint(attached.images.keys())] : [];
  return { system, messages, taint };
}
