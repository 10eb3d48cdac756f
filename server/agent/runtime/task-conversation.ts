import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { taskActivities, taskRuns, type TaintSource, type TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { cartOutcomeNotes } from '@/server/approvals/outcomes';
import { contactPriorities } from '@/server/contacts/priority';
import { strangerOf } from '@/server/tasks/strangers';
import { subtaskReports } from '@/server/tasks/subtasks';
import { modelContext, type Conversation } from './context';
import { conversationMessages } from './conversation';
import type { ModelContext } from './host';
import { taskRecallInput } from './recall-subject';
import { activityTaint, subtaskTaint } from './taint';
import { subtasksMessage, wakeNote } from './wake-note';

/** The newest activities a run replays; older ones are summarised by the task's plan and summary. */
const MAX_ACTIVITIES = 400;

/** An image shown to the model is a document's content: outside content, like read_file's text. */
const imageTaint = (ids: Iterable<string>): TaintSource[] => [...ids].map((ref) => ({ kind: 'file' as const, ref }));

/** The task as the first user message: its title and description exactly as the user wrote them. */
export const taskMessage = (task: Pick<TaskRow, 'title' | 'description'>) =>
  task.description ? `Task: ${task.title}\n\n${task.description}` : `Task: ${task.title}`;

/**
 * What the model sees on every call of a task run, in the contract's order (spec: What the model
 * sees), built by the one context builder (context.ts): the system message (with why this run
 * started, when an alarm, the subtasks or a cart's outcome woke it, and the outcomes of carts
 * since the previous run), the owner's memories, the task, then its conversation so far (the
 * newest user message last, as it was recorded). A task with subtasks also gets their report, as
 * untrusted data, between the earlier runs' conversation and this run's. A task's conversation
 * is its own only (a subtask never sees its parent's). `taint` lists every part of it that came
 * from outside the owner (taint.ts): the caller records it before the model reads it.
 */
export function runContext(db: Db, actor: UserActor, task: TaskRow, now: Date): Promise<ModelContext> {
  // Read once (a query builder runs again on every then): the conversation, and what recall takes from it.
  const newest = Promise.resolve(
    db.select().from(taskActivities).where(eq(taskActivities.taskId, task.id)).orderBy(desc(taskActivities.createdAt), desc(taskActivities.id)).limit(MAX_ACTIVITIES),
  );
  const conversation = (async (): Promise<Conversation> => {
    const [newestFirst, [run], subtasks] = await Promise.all([
      newest,
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
    // Whom to follow up with first, when an alarm woke a task waiting on contacts (a stranger's conversation reads no contacts).
    const waitedOn = task.alarmStatus === 'fired' && !strangerOf(task) ? task.waitingOnContacts.flatMap((c) => (c.contactId ? [c.contactId] : [])) : [];
    const priorities = await contactPriorities(db, task.userId, waitedOn);
    const activities = [...newestFirst].reverse();
    const current = run ? activities.findIndex((a) => a.runId === run.id) : -1;
    const [before, during] = current < 0 ? [activities, []] : [activities.slice(0, current), activities.slice(current)];
    return {
      tier: task.modelTier,
      fileIds: activities.flatMap((a) => a.fileIds ?? []),
      wakeNote: (reader) => wakeNote(task, run?.trigger ?? null, subtasks, reader, carts, priorities),
      messages: (attached) => [
        { role: 'user', content: taskMessage(task) },
        ...conversationMessages(before, attached),
        ...(subtasks.length ? [{ role: 'user' as const, content: subtasksMessage(subtasks) }] : []),
        ...conversationMessages(during, attached),
      ],
      taint: (attached, memories) => [...activityTaint(activities), ...subtaskTaint(subtasks), ...memories, ...imageTaint(attached.images.keys())],
    };
  })();
  const subject = newest.then((rows) => taskRecallInput(task, [...rows].reverse()));
  // A stranger conversation recalls nothing, so nothing may await it: a failed read is answered by `conversation`.
  subject.catch(() => undefined);
  return modelContext(
    db,
    actor,
    // A conversation with a stranger reads nothing private of the owner (tasks/strangers.ts): no memories, no files, no mailbox.
    { host: 'task', accountId: task.accountId, userId: task.userId, assistantId: task.assistantId, skills: task.skills, stranger: strangerOf(task) },
    { subject, conversation },
    now,
  );
}
