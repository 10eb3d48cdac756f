import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { chatMessages, taskRuns, type ChatMessageRow, type ChatRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { submitRunCart } from '@/server/approvals/run-cart';
import { stageDispatch } from '@/server/approvals/staging';
import { applyChange } from '@/server/tasks/move';
import { insertTask } from '@/server/tasks/service';
import { plan } from '@/server/tasks/transitions';
import type { ReplyRoute } from './audience';
import type { OutwardTarget } from './reply-readers';

/*
 * An answer others can read, staged (the audience rule, audience.ts): what would have been a chat
 * reply into a group or a shared thread becomes a dispatch of a small task of the owner's, "Reply
 * in <where>", through the approvals area like any send_message or send_email — the same cart,
 * the same matrix, the same hold. The task carries the chat's taint, so a turn that read anyone
 * else's words has its answer held (`heldBecause`, approval by a person: the owner is notified on
 * their own channels and approves, edits or rejects); an untainted one is released as the
 * owner's `messaging` (or `email_as_assistant`) cell says. The task never runs the model: it is
 * recorded with one finished run that staged the answer, and completed; approving its cart sends.
 *
 * Exactly once: the chat's reply is locked and marked (its delivery intent `staged`, naming the
 * cart) in the same transaction that stages it, so a retried step finds the mark and stages
 * nothing again.
 */

export type Staged = { staged: true; cartId: string; taskId: string; status: string } | { staged: false; reason: string };

type Outward = Extract<ReplyRoute, { kind: 'outward' }>;

const DESCRIPTION = (where: string) =>
  [
    `The assistant's answer to your message in ${where}.`,
    'People other than you read that thread, so the answer goes out as an action on your behalf: as your supervision settings say, and only with your approval when the conversation held words or files from anyone else.',
  ].join(' ');

export async function stageOutwardReply(db: Db, actor: UserActor, chat: ChatRow, replyId: string, route: Outward, target: OutwardTarget): Promise<Staged> {
  return db.transaction(async (tx) => {
    const [reply] = await tx.select().from(chatMessages).where(and(eq(chatMessages.id, replyId), eq(chatMessages.chatId, chat.id))).for('update');
    if (!reply || (reply.metadata as { delivery?: unknown }).delivery) return { staged: false as const, reason: 'already sent, staged or being sent' };
    let task = await insertTask(tx, actor, {
      title: `Reply in ${route.where}`.slice(0, 500),
      description: DESCRIPTION(route.where),
      assistant: chat.assistantId,
      taintSources: route.taint.length ? route.taint : undefined,
    });
    // The run that staged it: recorded finished, never queued (nothing is left for a model to do).
    const [run] = await tx
      .insert(taskRuns)
      .values({ taskId: task.id, accountId: task.accountId, userId: task.userId, status: 'finished', trigger: 'process', modelTier: task.modelTier, tainted: task.tainted, taintSources: task.taintSources, startedAt: sql`now()`, endedAt: sql`now()` })
      .returning({ id: taskRuns.id });
    task = await applyChange(tx, task, plan(task, 'start', 'executing'), 'start');
    const staged = await stageDispatch(tx, actor, task, run!.id, {
      type: target.type,
      platform: target.platform,
      actionType: target.actionType,
      to: target.to,
      cc: target.cc,
      subject: target.type === 'email' ? target.subject : null,
      body: reply.content,
      description: `Answer in ${route.where}`.slice(0, 2000),
    });
    task = await applyChange(tx, task, plan(task, 'finish', 'completed'), 'finish');
    const outcome = await submitRunCart(tx, run!.id);
    const status = outcome?.status ?? 'open';
    const held = status === 'pending_approval';
    await tx
      .update(chatMessages)
      .set({
        deliveryState: held ? 'held' : 'staged',
        metadata: { ...(reply.metadata as ChatMessageRow['metadata']), delivery: { state: 'staged', cartId: staged.cartId, taskId: task.id, audience: route.others } },
      })
      .where(eq(chatMessages.id, reply.id));
    return { staged: true as const, cartId: staged.cartId, taskId: task.id, status };
  });
}
