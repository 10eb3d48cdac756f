import { and, count, eq, gte, notInArray } from 'drizzle-orm';
import { atOnce } from '@/db/at-once';
import type { Tx } from '@/db/client';
import { carts, chatMessages, chats, tasks } from '@/db/schema';
import { matches } from '@/server/executor/cel';
import { ENDED_STATUSES } from '@/server/tasks/ended';

/**
 * What a `condition` expression can read about its user (docs/workflows.md): numbers counted
 * fresh at each evaluation. The expression is CEL, e.g. `pendingApprovals > 3`.
 */
export async function conditionInputs(tx: Tx, accountId: string, userId: string, now: Date) {
  const mine = and(eq(tasks.accountId, accountId), eq(tasks.userId, userId));
  const [[open], [awaiting], [approvals], [emails]] = await atOnce(tx, [
    () => tx.select({ n: count() }).from(tasks).where(and(mine, notInArray(tasks.status, [...ENDED_STATUSES]))),
    () => tx.select({ n: count() }).from(tasks).where(and(mine, eq(tasks.status, 'awaiting_user_input'))),
    () => tx.select({ n: count() }).from(carts).where(and(eq(carts.accountId, accountId), eq(carts.userId, userId), eq(carts.status, 'pending_approval'))),
    () =>
      tx
        .select({ n: count() })
        .from(chatMessages)
        .innerJoin(chats, eq(chats.id, chatMessages.chatId))
        .where(and(eq(chats.userId, userId), eq(chatMessages.platform, 'email'), eq(chatMessages.role, 'contact'), gte(chatMessages.createdAt, new Date(now.getTime() - 86_400_000)))),
  ]);
  return { openTasks: open?.n ?? 0, tasksAwaitingUser: awaiting?.n ?? 0, pendingApprovals: approvals?.n ?? 0, unreadEmails: emails?.n ?? 0 };
}

export async function conditionHolds(tx: Tx, expression: string, accountId: string, userId: string, now: Date): Promise<boolean> {
  return matches(expression, await conditionInputs(tx, accountId, userId, now));
}
