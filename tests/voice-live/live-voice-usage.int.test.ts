import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chats, chatTurns } from '@/db/schema';
import { insertBudget } from '@/server/budgets/service';
import { call } from '../helpers/client';
import { eventually, listen, speak, useLiveVoice, utterance } from './harness';

/*
 * Issue 48, what a live voice conversation on the chat page costs: each of the realtime model's
 * responses is a model call of one chat turn (the conversation), with the tokens its response.done
 * reported, priced by STEWARD_REALTIME_PRICE, in GET /chats/{chatId}/usage and charged to the
 * budgets covering the person; a spent budget refuses the conversation before the model is opened,
 * and ends one whose budget runs out, naming it.
 */

const { app, realtime, setEnv, pair, connect, open } = useLiveVoice();
const db = () => app().database.db;
// Credits per million tokens: a response of 100 fresh and 20 cached input tokens and 40 output tokens costs 3.02.
const PRICE = JSON.stringify({ input: 10_000, output: 50_000, cacheRead: 1_000 });
const PER_RESPONSE = 3.02;

beforeAll(() => {
  setEnv({ STEWARD_REALTIME_PRICE: PRICE });
});
afterAll(() => {
  setEnv({ STEWARD_REALTIME_PRICE: undefined });
});

const budgetOf = async (key: string, id: string) => (await call(app(), `/budgets/${id}`, { key })).body.budget.current as { spentCredits: number; reservedCredits: number };

/** One exchange: the person speaks, the stand-in hears it end and answers; resolves once the answer is done. */
async function exchange(ws: Parameters<typeof speak>[0], n: number) {
  await speak(ws, utterance());
  const session = realtime().sessions.at(-1)!;
  await realtime().until(() => session.responses[n]?.done);
}

describe('a live conversation’s usage', () => {
  it('each response is a model call of one chat turn, in the chat’s usage and charged to the person’s budget; what was held is released at the end', async () => {
    const { origin, a } = await pair();
    const budget = await insertBudget(db(), a.account.accountId, { scope: 'user', scopeId: a.id, period: 'month', limitCredits: 100 });
    realtime().state.usage = { inputTokens: 120, outputTokens: 40, cachedTokens: 20 };
    realtime().state.replies.push({ say: 'Friday at three.', audioMs: 100 }, { say: 'You are welcome.', audioMs: 100 });
    realtime().state.callerTranscripts.push('When is my dentist appointment?', 'Thanks.');
    const ws = await open(a, origin);
    const page = listen(ws);
    await page.until(() => page.events.find((e) => e.type === 'ready'), 'ready');
    await exchange(ws, 0);
    await exchange(ws, 1);
    ws.send(JSON.stringify({ type: 'end' }));
    expect((await page.closed).code).toBe(1000);

    const usage = await eventually(async () => {
      const got = await call(app(), `/chats/${a.chatId}/usage`, { key: a.key });
      return got.body.rows?.[0]?.turns === 2 ? got.body : null;
    }, 'the conversation’s usage');
    const [chat] = await db().select().from(chats).where(eq(chats.id, a.chatId));
    expect(usage.rows).toHaveLength(1);
    expect(usage.rows[0]).toMatchObject({
      modelTier: chat!.modelTier,
      model: 'stand-in-realtime-1',
      inputTokens: 200,
      outputTokens: 80,
      cacheReadTokens: 40,
      cacheCreationTokens: 0,
      totalTokens: 320,
      chargedCredits: 2 * PER_RESPONSE,
      isBillable: true,
      turns: 2,
    });
    expect(usage.total).toMatchObject({ inputTokens: 200, outputTokens: 80, runs: 1, turns: 2 });
    expect(usage.credits.total).toBe(2 * PER_RESPONSE);
    // The conversation's turn is ended: nothing waits on it, no engine runs it.
    const [turn] = await db().select().from(chatTurns).where(eq(chatTurns.id, usage.rows[0].runId));
    expect(turn).toMatchObject({ status: 'completed', chatId: a.chatId });
    expect(turn!.endedAt).not.toBeNull();

    const current = await eventually(async () => {
      const c = await budgetOf(a.account.key, budget.id);
      return c.reservedCredits === 0 ? c : null;
    }, 'the held reservation released');
    expect(current.spentCredits).toBe(2 * PER_RESPONSE);
  });

  it('a spent budget refuses the conversation before the model is opened, and the page is told which', async () => {
    const { origin, a } = await pair();
    const offer = await a.api.voice.live({ chatId: a.chatId });
    if (!offer.available) throw new Error('not available');
    const budget = await insertBudget(db(), a.account.accountId, { scope: 'user', scopeId: a.id, period: 'month', limitCredits: 0 });
    const sessions = realtime().sessions.length;

    const refused = await connect(`${offer.path}?token=${encodeURIComponent(offer.token)}`, { origin, cookie: a.cookie });
    expect(refused).toMatchObject({ ok: false, status: 402 });
    expect(!refused.ok && JSON.parse(refused.body).error).toContain(`the user budget ${budget.id} has no credits left`);
    expect(realtime().sessions.length).toBe(sessions);

    const again = await a.api.voice.live({ chatId: a.chatId });
    expect(again).toMatchObject({ available: false, reason: expect.stringContaining(`Live voice cannot start: the user budget ${budget.id} has no credits left`) });
  });

  it('a budget that runs out during the conversation ends it, naming the budget; what was said is charged', async () => {
    const { origin, a } = await pair();
    const budget = await insertBudget(db(), a.account.accountId, { scope: 'user', scopeId: a.id, period: 'month', limitCredits: 5 });
    realtime().state.usage = { inputTokens: 120, outputTokens: 40, cachedTokens: 20 };
    realtime().state.replies.push({ say: 'One.', audioMs: 100 }, { say: 'Two.', audioMs: 100 }, { say: 'Three.', audioMs: 100 });
    const ws = await open(a, origin);
    const page = listen(ws);
    await page.until(() => page.events.find((e) => e.type === 'ready'), 'ready');
    await exchange(ws, 0);
    await exchange(ws, 1);
    // The second response spent past the limit: the next one may not start.
    const closed = await page.closed;
    expect(closed.code).toBe(1000);
    expect(page.events.at(-1)).toMatchObject({ type: 'ended', reason: expect.stringContaining(`Live voice stopped: the user budget ${budget.id} has no credits left`) });
    const session = realtime().sessions.at(-1)!;
    await realtime().until(() => session.closed);
    expect(session.responses).toHaveLength(2);

    const current = await eventually(async () => {
      const c = await budgetOf(a.account.key, budget.id);
      return c.reservedCredits === 0 && c.spentCredits > 0 ? c : null;
    }, 'the budget charged and nothing held');
    expect(current.spentCredits).toBe(2 * PER_RESPONSE);
  });
});
