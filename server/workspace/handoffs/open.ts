import { emitWebhookEvent } from '@/server/webhooks/emit';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { handoffNotice } from '@/server/notices/events';
import { handoffs, type HandoffActionType, type HandoffRow, type TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { AppError } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { readControl } from '../control';
import { handoffBrowser } from './browser-seam';
import { closeHandoff } from './close';
import { DECLINE_COOLDOWN_MS, taskHandoffTtlMs } from './lifetimes';
import { assertHandoffAllowed } from './policy';

/*
 * A task asks the user to take the browser (request_handoff). The policy is checked first
 * (workspaceHandoff and the domain lists); a task the user declined recently is not asked again;
 * a task's earlier open handoff is replaced. The task's tab is pointed at targetUrl when the
 * assistant still holds the browser, so the URL is `live` (read back from the tab); otherwise
 * it is the one the assistant `claimed`.
 */

export type OpenRequest = { actionType: HandoffActionType; targetUrl: string; prompt: string };

export async function openTaskHandoff(tx: Tx, actor: UserActor, task: TaskRow, input: OpenRequest, runId: string | null, now: Date): Promise<HandoffRow> {
  const owner = { accountId: task.accountId, userId: task.userId };
  if (actor.user.id !== task.userId) throw new AppError(404, 'not_found', 'Task not found');
  await assertHandoffAllowed(tx, owner.accountId, owner.userId, input.targetUrl);
  const [declined] = await tx
    .select({ id: handoffs.id })
    .from(handoffs)
    .where(and(eq(handoffs.taskId, task.id), eq(handoffs.closeReason, 'declined'), gt(handoffs.closedAt, new Date(now.getTime() - DECLINE_COOLDOWN_MS))))
    .limit(1);
  if (declined) {
    throw new AppError(409, 'handoff_declined_recently', 'The user declined a handoff for this task within the last hour: find another way, or tell the user you cannot continue');
  }
  const earlier = await tx
    .select()
    .from(handoffs)
    .where(and(eq(handoffs.taskId, task.id), isNull(handoffs.closedAt)))
    .for('update');
  for (const e of earlier) await closeHandoff(tx, e, { status: 'closed', reason: 'superseded' }, now);

  const live = await pointTab(owner, task.id, input.targetUrl);
  const [h] = await tx
    .insert(handoffs)
    .values({
      ...owner,
      taskId: task.id,
      runId,
      actionType: input.actionType,
      prompt: input.prompt,
      targetUrl: live ?? input.targetUrl,
      urlSource: live ? 'live' : 'claimed',
      status: 'pending',
      expiresAt: new Date(now.getTime() + taskHandoffTtlMs()),
    })
    .returning();
  // The account's endpoints hear of it in the same transaction (a person is needed at the browser).
  await emitWebhookEvent(tx, h.accountId, 'handoff.opened', { handoffId: h.id, taskId: task.id, userId: h.userId, actionType: h.actionType, prompt: h.prompt, targetUrl: h.targetUrl, expiresAt: h.expiresAt.toISOString() });
  // The user is told where they are: the handoff waits for them (workspace's own page opens it).
  await handoffNotice(tx, { id: h.id, accountId: h.accountId, userId: h.userId, taskId: h.taskId, prompt: h.prompt });
  return h;

  async function pointTab(o: typeof owner, taskId: string, url: string): Promise<string | null> {
    const browser = handoffBrowser();
    if (!browser) return null;
    // While the person holds the browser the assistant must not touch it: the URL stays claimed.
    if ((await readControl(tx, o.accountId, o.userId)).operator === 'user') return null;
    try {
      return await browser.openForTask(o.accountId, o.userId, taskId, url);
    } catch (err) {
      // A URL the workspace refuses (file:, private ranges, metadata) is refused here too; a
      // name that does not resolve right now may still be right: it stays the claimed URL.
      if (err instanceof AppError && err.status < 500 && err.extra.code !== 'unresolvable') throw err;
      logger.warn({ err, taskId }, 'handoff: the task tab could not be pointed at the target URL');
      return null;
    }
  }
}
