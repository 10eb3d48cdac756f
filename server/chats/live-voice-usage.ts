import { desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { chatMessages, chatTurns, type ChatRow } from '@/db/schema';
import { newId } from '@/db/schema/columns';
import { targetsFor } from '@/server/budgets/coverage';
import { releaseCall, reserveCall, settleCall, settledAlerts, settlementSql, type SpentBudget } from '@/server/budgets/reserve';
import { figures, keyOf, limitOf, readUsageRows } from '@/server/budgets/usage-rows';
import type { RealtimeConfig } from '@/server/channels/realtime/config';
import type { RealtimeUsage } from '@/server/channels/realtime/events';
import { realtimePriceTable } from '@/server/channels/realtime/price';
import { recordCallUsage, type TokenCounts } from '@/server/models/model-calls';
import { creditsFor } from '@/server/models/prices';

/*
 * What a live voice conversation on the chat page costs, and the budgets it answers to (issue 48).
 *
 * Usage: the conversation is one turn of its chat (a chat_turns row, recorded `completed` when its
 * first response is counted, so no stream waits on it and no engine runs it), and each of the
 * realtime model's responses is one model call of that turn (chat_model_calls, through the one
 * writer, server/models/model-calls.ts): its tokens as response.done reported them (cached input
 * as cache reads), at the chat's tier, model STEWARD_REALTIME_MODEL, priced by
 * STEWARD_REALTIME_PRICE or else the tier's price (channels/realtime/price.ts). So GET
 * /chats/{chatId}/usage, the console and budgets see it as they see a typed turn.
 *
 * Budgets: a conversation starts only when no budget covering the person is spent (admission,
 * spentBudgetOf); the realtime model answers on its own (server-side voice detection), so a
 * response cannot be reserved just before it is made as a text model call is: the conversation
 * instead holds the next response's reservation ahead (`live:<session>:<n>`, the estimate of
 * server/budgets/reserve.ts) and settles it with the response's actual cost when its usage comes.
 * When the next reservation finds a budget spent, the conversation ends, naming it. A budget is
 * then exceeded by at most the response under way, as with text.
 */

/** A budget covering the person that is spent now (reservations in flight aside), or null: read only, as GET /credits reads it. */
export async function spentBudgetOf(db: Db, accountId: string, userId: string, now = new Date()): Promise<SpentBudget | null> {
  const targets = await targetsFor(db, accountId, userId, now);
  const rows = await readUsageRows(db, targets);
  for (const t of targets) {
    const row = rows.get(keyOf(t));
    const spent = figures(row).spent;
    const limit = limitOf(t, row);
    if (spent >= limit) {
      return { budgetId: t.budgetId, scope: t.budget.scope, scopeId: t.budget.scopeId, period: t.budget.period, memberUserId: t.memberUserId || null, spentCredits: spent, limitCredits: limit };
    }
  }
  return null;
}

/** How a spent budget is named to the person on the chat page: before a conversation, or ending one (`during`). */
export function liveBudgetMessage(b: SpentBudget, during = false): string {
  const which = b.memberUserId ? `your share of the team budget ${b.budgetId}` : `the ${b.scope} budget ${b.budgetId}`;
  return `${during ? 'Live voice stopped' : 'Live voice cannot start'}: ${which} has no credits left (${b.spentCredits} of ${b.limitCredits} credits spent). Ask an administrator to top it up (POST /api/budgets/${b.budgetId}/top-up).`;
}

export type LiveUsage = {
  /** Holds the first response's reservation; a spent budget's message when the conversation may not start. */
  begin: () => Promise<string | null>;
  /** Records a response and holds the next one's reservation; a spent budget's message when the conversation must end. */
  record: (usage: RealtimeUsage) => Promise<string | null>;
  /** The conversation ended: a reservation still held is released, the turn's end stamped. Once. */
  close: () => Promise<void>;
};

/** A response's tokens as the usage rows keep them (four disjoint counts). */
export const tokensOf = (u: RealtimeUsage): TokenCounts => ({
  inputTokens: Math.max(0, u.inputTokens - u.cachedTokens),
  outputTokens: u.outputTokens,
  cacheReadTokens: u.cachedTokens,
  cacheCreationTokens: 0,
});

export function liveUsage(db: Db, chat: Pick<ChatRow, 'id' | 'accountId' | 'userId' | 'modelTier'>, sessionId: string, realtime: RealtimeConfig): LiveUsage {
  const tier = chat.modelTier;
  const prices = realtimePriceTable(tier);
  const startedAt = new Date();
  const turnId = newId();
  let turnWritten = false;
  let responses = 0;
  let held: string | null = null;
  let closed = false;

  /** Holds response `n`'s estimate: null, or the spent budget's message. */
  const reserve = async (n: number, during = true): Promise<string | null> => {
    const r = await reserveCall(db, { accountId: chat.accountId, userId: chat.userId, tier, ref: `live:${sessionId}:${n}` });
    if (r.kind === 'reserved') held = r.ref;
    // `busy`: calls in flight may spend what is left; nothing is held and the next response asks again.
    return r.kind === 'exhausted' ? liveBudgetMessage(r.budget, during) : null;
  };

  return {
    begin: () => reserve(1, false),

    async record(usage) {
      if (closed) return null;
      const n = ++responses;
      if (!held) await reserve(n);
      const ref = held;
      held = null;
      const tokens = tokensOf(usage);
      const priced = creditsFor(tier, tokens, { billable: true }, prices);
      const call = { seq: n - 1, modelTier: tier, model: realtime.model, usage: tokens, chargedCredits: priced.chargedCredits, isBillable: priced.isBillable };
      const now = new Date();
      await db.transaction(async (tx) => {
        if (!turnWritten) {
          // The turn answers the newest message when the conversation is first counted: normally the person's first words.
          const [newest] = await tx.select({ id: chatMessages.id }).from(chatMessages).where(eq(chatMessages.chatId, chat.id)).orderBy(desc(chatMessages.createdAt), desc(chatMessages.id)).limit(1);
          await tx
            .insert(chatTurns)
            .values({ id: turnId, chatId: chat.id, accountId: chat.accountId, userId: chat.userId, messageId: newest?.id ?? sessionId, modelTier: tier, status: 'completed', startedAt, endedAt: now })
            .onConflictDoNothing();
        } else await tx.update(chatTurns).set({ endedAt: now }).where(eq(chatTurns.id, turnId));
        if (!ref) return void (await recordCallUsage(tx, { turnId }, call, null));
        const { id, also } = await recordCallUsage(tx, { turnId }, call, settlementSql(ref, tier, priced.chargedCredits, now));
        if (id) await settledAlerts(tx, also ?? [], now);
        else await settleCall(tx, ref, tier, priced.chargedCredits, now);
      });
      turnWritten = true;
      if (closed) return null;
      return reserve(n + 1);
    },

    async close() {
      if (closed) return;
      closed = true;
      const ref = held;
      held = null;
      if (ref) await db.transaction((tx) => releaseCall(tx, ref));
      if (turnWritten) await db.update(chatTurns).set({ endedAt: new Date() }).where(eq(chatTurns.id, turnId));
    },
  };
}
