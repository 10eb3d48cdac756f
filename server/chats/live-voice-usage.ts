import { desc, eq } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { chatMessages, chatTurns, type ChatRow } from '@/db/schema';
import { newId } from '@/db/schema/columns';
import { releaseCall, reserveCall, settleCall, settledAlerts, settlementSql, type SpentBudget } from '@/server/budgets/reserve';
import type { RealtimeConfig } from '@/server/channels/realtime/config';
import type { RealtimeUsage } from '@/server/channels/realtime/events';
import { realtimePriceTable } from '@/server/channels/realtime/price';
import { recordCallUsage, type CallOwner, type ModelCallUsage, type TokenCounts } from '@/server/models/model-calls';
import { creditsFor } from '@/server/models/prices';

/*
 * What a live conversation with the realtime model costs, and the budgets it answers to (issue
 * 48): a live voice conversation on the chat page, and a realtime phone call
 * (server/messaging/voice-bridge.ts), each counted on its chat.
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
 * budgets/room.ts spentBudgetOf); the realtime model answers on its own (server-side voice detection), so a
 * response cannot be reserved just before it is made as a text model call is: the conversation
 * instead holds the next response's reservation ahead (`live:<session>:<n>`, the estimate of
 * server/budgets/reserve.ts) and settles it with the response's actual cost when its usage comes.
 * When the next reservation finds a budget spent, the conversation ends, naming it. A budget is
 * then exceeded by at most the response under way, as with text.
 *
 * A call without a chat at its start (someone leaving a message: their chat is opened by the
 * message, at the end) is charged to its owner's budgets response by response all the same; its
 * rows are written on the chat it ends up on, if any (close). A placed call has no chat at all: it
 * is a task's, and each response is a model call of the task run that placed it (task_model_calls,
 * through the same writer), numbered by the call's own key so that it is written and settled once
 * (server/messaging/placed-call-usage.ts).
 */

/** How a spent budget is named: before a conversation, or ending one (`during`); `what` names the conversation (the chat page's, a call's). */
export function liveBudgetMessage(b: SpentBudget, during = false, what = 'Live voice'): string {
  const which = b.memberUserId ? `your share of the team budget ${b.budgetId}` : `the ${b.scope} budget ${b.budgetId}`;
  return `${what} ${during ? 'stopped' : 'cannot start'}: ${which} has no credits left (${b.spentCredits} of ${b.limitCredits} credits spent). Ask an administrator to top it up (POST /api/budgets/${b.budgetId}/top-up).`;
}

export type LiveUsage = {
  /** Holds the first response's reservation; a spent budget's message when the conversation may not start. */
  begin: () => Promise<string | null>;
  /** Records a response and holds the next one's reservation; a spent budget's message when the conversation must end. */
  record: (usage: RealtimeUsage) => Promise<string | null>;
  /**
   * The conversation ended: a reservation still held is released, the turn's end stamped. Once.
   * `chatId`: the chat a conversation that had none at its start ended up on (a stranger's call,
   * whose message opens it at the end): the responses counted so far are written there.
   */
  close: (chatId?: string | null) => Promise<void>;
};

/**
 * A task run that keeps a conversation's usage (a placed call's: the run that placed it). `seq`
 * numbers response `n` (from 1) in the run, apart from the run's own model calls, the same for the
 * same response however often it is counted; null when it has no number (the response is charged, with no row).
 */
export type RunHome = { runId: string; seq: (n: number) => number | null };

/**
 * Who pays for a conversation and where its usage is kept: the chat (`id`), or none yet (a call
 * whose chat is known only at its end, or never: a placed call has a task, not a chat), then the
 * task run (`run`) when there is one. Without a chat or a run, each response is charged to the
 * budgets when it comes and its row waits for close().
 */
export type UsageHome = Pick<ChatRow, 'accountId' | 'userId' | 'modelTier'> & { id: string | null; run?: RunHome | null };

/** The reservations' prefix (`live:<session>:<n>`, `call:<callId>:<n>`) and what a spent budget's message calls the conversation. */
export type UsageNames = { ref: string; what: string };
const LIVE_NAMES: UsageNames = { ref: 'live', what: 'Live voice' };

/** A response's tokens as the usage rows keep them (four disjoint counts). */
export const tokensOf = (u: RealtimeUsage): TokenCounts => ({
  inputTokens: Math.max(0, u.inputTokens - u.cachedTokens),
  outputTokens: u.outputTokens,
  cacheReadTokens: u.cachedTokens,
  cacheCreationTokens: 0,
});

export function liveUsage(db: Db, chat: UsageHome, sessionId: string, realtime: RealtimeConfig, names: UsageNames = LIVE_NAMES): LiveUsage {
  const tier = chat.modelTier;
  const prices = realtimePriceTable(tier);
  const startedAt = new Date();
  const turnId = newId();
  let turnWritten = false;
  let responses = 0;
  let held: string | null = null;
  let closed = false;
  /** Responses charged while the conversation had no chat, written on the chat it ends up on (close). */
  const unwritten: ModelCallUsage[] = [];

  /** Holds response `n`'s estimate: null, or the spent budget's message. */
  const reserve = async (n: number, during = true): Promise<string | null> => {
    const r = await reserveCall(db, { accountId: chat.accountId, userId: chat.userId, tier, ref: `${names.ref}:${sessionId}:${n}` });
    if (r.kind === 'reserved') held = r.ref;
    // `busy`: calls in flight may spend what is left; nothing is held and the next response asks again.
    return r.kind === 'exhausted' ? liveBudgetMessage(r.budget, during, names.what) : null;
  };

  /**
   * The response's row and, when a reservation holds its cost, the settlement, made by the
   * statement that writes the row (as a model step's); a row already there (the response counted
   * before) is not written again, and the reservation is settled on its own: once settled, never again.
   */
  const write = async (tx: Tx, owner: CallOwner, call: ModelCallUsage, ref: string | null, now: Date) => {
    if (!ref) return void (await recordCallUsage(tx, owner, call, null));
    const { id, also } = await recordCallUsage(tx, owner, call, settlementSql(ref, tier, call.chargedCredits, now));
    if (id) await settledAlerts(tx, also ?? [], now);
    else await settleCall(tx, ref, tier, call.chargedCredits, now);
  };

  /** The conversation's turn on `chatId`, written once (completed: no engine runs it) or its end moved on. */
  const stampTurn = async (tx: Tx, chatId: string, now: Date) => {
    if (turnWritten) return void (await tx.update(chatTurns).set({ endedAt: now }).where(eq(chatTurns.id, turnId)));
    // The turn answers the newest message when the conversation is first counted: normally the person's first words.
    const [newest] = await tx.select({ id: chatMessages.id }).from(chatMessages).where(eq(chatMessages.chatId, chatId)).orderBy(desc(chatMessages.createdAt), desc(chatMessages.id)).limit(1);
    await tx
      .insert(chatTurns)
      .values({ id: turnId, chatId, accountId: chat.accountId, userId: chat.userId, messageId: newest?.id ?? sessionId, modelTier: tier, status: 'completed', startedAt, endedAt: now })
      .onConflictDoNothing();
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
      const chatId = chat.id;
      const run = chat.run;
      const seq = !chatId && run ? run.seq(n) : null;
      if (chatId) {
        await db.transaction(async (tx) => {
          await stampTurn(tx, chatId, now);
          await write(tx, { turnId }, call, ref, now);
        });
        turnWritten = true;
      } else if (run && seq !== null) {
        // A placed call: a model call of the run that placed it, under the call's own number.
        await db.transaction((tx) => write(tx, { runId: run.runId }, { ...call, seq }, ref, now));
      } else {
        // No chat yet: the budgets are charged now, the row waits for the chat (close).
        if (!run) unwritten.push(call);
        if (ref) await db.transaction((tx) => settleCall(tx, ref, tier, priced.chargedCredits, now));
      }
      if (closed) return null;
      return reserve(n + 1);
    },

    async close(chatId) {
      if (closed) return;
      closed = true;
      const ref = held;
      held = null;
      if (ref) await db.transaction((tx) => releaseCall(tx, ref));
      const home = chat.id ?? chatId;
      if (!chat.id && home && unwritten.length) {
        // Already charged when they came (record): only the rows are written now.
        await db.transaction(async (tx) => {
          await stampTurn(tx, home, new Date());
          for (const call of unwritten) await recordCallUsage(tx, { turnId }, call, null);
        });
        turnWritten = true;
      } else if (turnWritten) await db.update(chatTurns).set({ endedAt: new Date() }).where(eq(chatTurns.id, turnId));
    },
  };
}
