import { storableText } from '@/db/storable';
import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { sentEmailsByMessageId } from '@/db/queries/sent-messages';
import { accounts, taskActivities, tasks, type InboundMessageStatus, type MailAuthResult, type TaskActivityRow, type TaskRow } from '@/db/schema';
import { MAX_MESSAGE_CHARS } from './contracts';
import { noteUnreadMessage } from './holds';
import { applyChange } from './move';
import { openRun, queueRun, queueWakeRun } from './runs';
import { allowed, plan } from './transitions';
import { awaits } from './waiting-on';

/*
 * A reply by email wakes the task that waits for it (spec document 4, Inbound email). It counts
 * as a reply when its In-Reply-To or References names the Message-ID of an email this very
 * assistant sent from its own address for the task (replies to mail sent as the user reach the
 * user's mailbox, not Steward), and its From address is one the task waits on (waitingOnContacts,
 * set by wait_for_reply). Then, and only when its From address is proven (DMARC, or SPF or DKIM
 * aligned with its domain: server/mail/checks/authentication.ts), it becomes the task's
 * `contact` activity, which the model only ever reads as untrusted data, and the task wakes
 * with a run triggered by `reply`. An unproven one names someone it may not be from: it is kept
 * as `unverified`, and the task shows a `system` note saying so, which the model never reads.
 */

export type InboundReply = {
  accountId: string;
  /** The assistant whose address received it. */
  assistantId: string;
  from: { address: string; name: string | null };
  subject: string;
  text: string;
  /** In-Reply-To, then References (newest first): the first one Steward sent decides the task. */
  references: string[];
  dmarc: MailAuthResult;
  /** The From address is proven; when not, `senderUnproven` names the checks that failed. */
  senderVerified: boolean;
  senderUnproven: string | null;
};

export type ReplyOutcome = {
  status: InboundMessageStatus;
  /** Why it did not attach (or, attached, why the task did not wake). */
  reason: string | null;
  /** The task it replies to, once the reference checks out: kept even when it does not attach. */
  taskId: string | null;
  activityId: string | null;
  woke: boolean;
};

const outcome = (status: InboundMessageStatus, reason: string | null, taskId: string | null = null): ReplyOutcome => ({ status, reason, taskId, activityId: null, woke: false });

/** The activity text: who wrote, the subject, then the body, within the limit of one task message. */
export function contactContent(reply: Pick<InboundReply, 'from' | 'subject' | 'text'>): string {
  const who = reply.from.name ? `${reply.from.name} <${reply.from.address}>` : reply.from.address;
  const text = `Email from ${who}\nSubject: ${reply.subject}\n\n${reply.text.trim()}`;
  const cut = '\n[message truncated]';
  // Someone else's words, stored as Postgres can hold them (db/storable.ts).
  return storableText(text.length <= MAX_MESSAGE_CHARS ? text : text.slice(0, MAX_MESSAGE_CHARS - cut.length) + cut);
}

/** What the task shows for a reply it did not take: Steward's note, naming only the claimed address and the checks. */
function unverifiedNote(reply: InboundReply, task: TaskRow): string {
  const checks = reply.senderUnproven ?? 'its sender could not be authenticated';
  const waiting = task.status === 'awaiting_non_user_response' ? ' The task keeps waiting.' : '';
  return storableText(`An unverified message claiming to be from ${reply.from.address} arrived in this thread and was not taken as their reply (${checks}).${waiting}`);
}

/** The task Steward's sent mail belongs to, locked; only one this assistant sent for its task's owner. */
async function repliedTask(tx: Tx, reply: InboundReply): Promise<TaskRow | null> {
  const sent = (await sentEmailsByMessageId(tx, reply.references, reply.accountId)).filter(
    (s) => s.assistantId === reply.assistantId && s.actionType !== 'email_as_user',
  );
  for (const s of sent) {
    const [task] = await tx
      .select()
      .from(tasks)
      .where(and(eq(tasks.id, s.taskId), eq(tasks.accountId, reply.accountId), eq(tasks.userId, s.userId)))
      .for('update');
    if (task) return task;
  }
  return null;
}

/** The run that reads the reply: the task's open one, or a new one; null when the task only keeps it. */
export async function runForReply(tx: Tx, task: TaskRow, now: Date): Promise<{ runId: string | null; woke: boolean; reason: string | null }> {
  const [account] = await tx.select({ frozen: accounts.killSwitch }).from(accounts).where(eq(accounts.id, task.accountId));
  // A frozen account's tasks do not run: the reply is attached, and the task keeps waiting (its alarm still set).
  if (account?.frozen) {
    // A conversation at rest shows that a message waits for it (message_received); the holds sweep reopens it once the switch is released.
    if (task.status === 'conversation') await noteUnreadMessage(tx, task, now);
    return { runId: null, woke: false, reason: 'account_frozen' };
  }
  if (allowed(task.status, 'wake', 'pending')) {
    const woken = await applyChange(tx, task, plan(task, 'wake', 'pending', undefined, now), 'wake');
    return { runId: (await queueWakeRun(tx, woken, 'reply')).id, woke: true, reason: null };
  }
  if (task.status === 'pending') return { runId: (await queueWakeRun(tx, task, 'reply')).id, woke: true, reason: null };
  if (task.status === 'executing') return { runId: (await openRun(tx, task.id))?.id ?? (await queueRun(tx, task, 'reply')).id, woke: false, reason: null };
  return { runId: null, woke: false, reason: `task_${task.status}` };
}

/**
 * The one way a proven reply from someone a task waits on reaches it, on every channel (spec 6:
 * Replies on every channel): their words become the task's `contact` activity on that platform
 * (read by the model only as untrusted data, and tainting the run that reads it), and the task
 * wakes with a run triggered by `reply` (or the running one reads it). Inside the caller's
 * transaction, with the task locked by the caller.
 */
export async function attachContactReply(
  tx: Tx,
  task: TaskRow,
  reply: { platform: NonNullable<TaskActivityRow['platform']>; content: string; fileIds?: string[] },
  now = new Date(),
): Promise<{ runId: string | null; woke: boolean; reason: string | null; activityId: string }> {
  const run = await runForReply(tx, task, now);
  const [activity] = await tx
    .insert(taskActivities)
    .values({
      taskId: task.id,
      accountId: task.accountId,
      kind: 'contact',
      platform: reply.platform,
      content: storableText(reply.content),
      fileIds: reply.fileIds ?? [],
      runId: run.runId,
      createdAt: sql`clock_timestamp()`,
    })
    .returning({ id: taskActivities.id });
  return { ...run, activityId: activity.id };
}

/**
 * Attaches a reply to the task it answers and wakes it, inside the caller's transaction (which
 * also records the inbound message). Mail whose From address is not proven is never attached:
 * attaching it would let anyone speak as the person the task waits on. DMARC `fail` (the
 * domain disowns it) is quarantined; any other unproven reply from an awaited address is
 * `unverified` and noted on the task.
 */
export async function attachReply(tx: Tx, reply: InboundReply, now = new Date()): Promise<ReplyOutcome> {
  if (!reply.references.length) return outcome('unmatched', 'no_reference');
  const task = await repliedTask(tx, reply);
  if (!task) return outcome('unmatched', 'unknown_reference');
  if (reply.dmarc === 'fail') return outcome('quarantined', 'dmarc_fail', task.id);
  const awaited = await awaits(tx, task, { email: reply.from.address });
  if (!awaited) return outcome('unmatched', 'sender_not_awaited', task.id);
  if (!reply.senderVerified) {
    await tx.insert(taskActivities).values({
      taskId: task.id,
      accountId: task.accountId,
      kind: 'system',
      platform: 'email',
      content: unverifiedNote(reply, task),
      createdAt: sql`clock_timestamp()`,
    });
    return outcome('unverified', 'sender_unverified', task.id);
  }

  const run = await attachContactReply(tx, task, { platform: 'email', content: contactContent(reply) }, now);
  return { status: 'attached', reason: run.reason, taskId: task.id, activityId: run.activityId, woke: run.woke };
}
