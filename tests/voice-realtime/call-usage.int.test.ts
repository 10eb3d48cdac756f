import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskActivities, taskModelCalls, taskRuns } from '@/db/schema';
import { realtimeConfig } from '@/server/channels/realtime/config';
import { liveUsage } from '@/server/chats/live-voice-usage';
import { planCall } from '@/server/messaging/voice-realtime-plan';
import { call } from '../helpers/client';
import { useRealtimeHarness } from './harness';

/*
 * Issue 48, what a live call costs: each of the realtime model's responses (response.done usage)
 * is a model call of the call's chat, priced by STEWARD_REALTIME_PRICE, in GET
 * /chats/{chatId}/usage and charged to the budgets covering the assistant's owner; a call the
 * assistant placed has no chat: its responses are model calls of the task run that placed it, in
 * GET /tasks/{taskId}/usage, charged as well. A spent budget
 * opens no model session, and ends a conversation that spends it; the call goes on without the
 * model: the owner hears why and goodbye (as a turn refused by the budget says), someone leaving a
 * message and a placed call go on in turns, which need no model.
 */

const h = useRealtimeHarness('+1628560');
// Credits per million tokens: a response of 100 fresh and 20 cached input tokens and 40 output tokens costs 3.02.
const PRICE = JSON.stringify({ input: 10_000, output: 50_000, cacheRead: 1_000 });
const PER_RESPONSE = 3.02;
const USAGE = { inputTokens: 120, outputTokens: 40, cachedTokens: 20 };
const OWNER_SORRY = 'Sorry, I cannot talk right now: your credits for this period are used up. Goodbye.';

let savedPrice: string | undefined;
beforeAll(() => {
  savedPrice = process.env.STEWARD_REALTIME_PRICE;
  process.env.STEWARD_REALTIME_PRICE = PRICE;
});
afterAll(() => {
  if (savedPrice === undefined) delete process.env.STEWARD_REALTIME_PRICE;
  else process.env.STEWARD_REALTIME_PRICE = savedPrice;
});

type Owner = Awaited<ReturnType<typeof h.owner>>;

/** A budget on the owner, made by the account's administrator as the API offers it. */
async function budgetFor(p: Owner, limitCredits: number): Promise<string> {
  const made = await call(h.app(), '/budgets', { key: p.acctKey, body: { scope: 'user', scopeId: p.id, period: 'month', limitCredits } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.budget.id as string;
}

/** The budget's current period, once nothing is held on it any more. */
const settledBudget = (p: Owner, id: string) =>
  h.until(async () => {
    const current = (await call(h.app(), `/budgets/${id}`, { key: p.acctKey })).body.budget.current as { spentCredits: number; reservedCredits: number };
    return current.reservedCredits === 0 ? current : null;
  });

/** GET /chats/{chatId}/usage as the owner reads it, once the realtime model's calls number `turns`. */
const usageOf = (p: Owner, chatId: string, turns: number) =>
  h.until(async () => {
    const got = await call(h.app(), `/chats/${chatId}/usage`, { key: p.key });
    expect(got.status).toBe(200);
    const row = (got.body.rows as Array<Record<string, any>>).find((r) => r.model === 'stand-in-realtime-1');
    return row?.turns === turns ? { body: got.body, row } : null;
  });

/** GET /tasks/{taskId}/usage as the owner reads it, once the realtime model's calls number `calls`. */
const taskUsageOf = (p: Owner, taskId: string, calls: number) =>
  h.until(async () => {
    const got = await call(h.app(), `/tasks/${taskId}/usage`, { key: p.key });
    expect(got.status).toBe(200);
    const rows = (got.body.rows as Array<Record<string, any>>).filter((r) => r.model === 'stand-in-realtime-1');
    return rows.length >= calls ? { body: got.body, rows } : null;
  }, 15_000);

describe('a live call’s model usage', () => {
  it('the owner’s call: each response is a model call of the call’s chat, in its usage and charged to the owner’s budget', async () => {
    const p = await h.owner();
    const budget = await budgetFor(p, 100);
    h.realtime.state.usage = { ...USAGE };
    h.realtime.state.replies.push({ say: 'Hi, how can I help?', audioMs: 100 }, { say: 'Friday at three.', audioMs: 100 });
    h.realtime.state.callerTranscripts.push('When is my dentist appointment?');
    h.onStream(async (m) => {
      const s = await h.greeted();
      await m.speak();
      await h.realtime.until(() => s.responses[1]?.done);
      await m.hangUp();
      return 'hung_up';
    });
    const c = await h.twilio.call({ from: p.phone, to: p.line });

    const chats = await h.voiceChats(p);
    expect(chats).toHaveLength(1);
    expect((await h.callRow(c.callSid))!.chatId).toBe(chats[0]!.id);
    const { body, row } = await usageOf(p, chats[0]!.id, 2);
    expect(body.rows).toHaveLength(1);
    expect(row).toMatchObject({ inputTokens: 200, outputTokens: 80, cacheReadTokens: 40, cacheCreationTokens: 0, totalTokens: 320, chargedCredits: 2 * PER_RESPONSE, isBillable: true, turns: 2 });
    expect(body.total).toMatchObject({ inputTokens: 200, outputTokens: 80, cacheReadTokens: 40, runs: 1, turns: 2 });
    expect(body.credits.total).toBe(2 * PER_RESPONSE);
    // No chat model turn ran: what was charged is the realtime model's.
    expect(h.state.llm.requests).toHaveLength(0);
    expect((await settledBudget(p, budget)).spentCredits).toBe(2 * PER_RESPONSE);
  });

  it('someone leaving a message: the responses are counted on the chat their message opens, charged to the owner', async () => {
    const p = await h.owner({ talkToStrangers: true });
    const budget = await budgetFor(p, 100);
    const caller = h.nextNumber();
    h.realtime.state.usage = { ...USAGE };
    h.realtime.state.replies.push({ say: 'Hello, please leave a message.', audioMs: 100 }, { say: 'Thank you, I will pass it on.', audioMs: 100 });
    h.realtime.state.callerTranscripts.push('Tell them the parcel arrived.');
    h.onStream(async (m) => {
      const s = await h.greeted();
      await m.speak();
      await h.realtime.until(() => s.responses[1]?.done);
      await m.hangUp();
      return 'hung_up';
    });
    const c = await h.twilio.call({ from: caller, to: p.line });

    const chatId = await h.until(async () => (await h.callRow(c.callSid))?.chatId ?? null);
    const messages = await h.messagesOf(p, chatId);
    expect(messages.map((m) => m.content)).toContain('Tell them the parcel arrived.');
    const { row } = await usageOf(p, chatId, 2);
    expect(row).toMatchObject({ inputTokens: 200, outputTokens: 80, cacheReadTokens: 40, chargedCredits: 2 * PER_RESPONSE, isBillable: true });
    // The stranger conversation's own turn (the scripted chat model) is unpriced: the budget's spend is the call's.
    expect((await settledBudget(p, budget)).spentCredits).toBe(2 * PER_RESPONSE);
  });
  it('a placed call: each response is a model call of the task run that placed it, in the task’s usage and charged to the owner’s budget, once', async () => {
    const p = await h.owner();
    const budget = await budgetFor(p, 100);
    const restaurant = h.nextNumber();
    const script = 'Hello, this is Ada calling to confirm a table for two on Friday at 8. Does that still work?';
    await h.cells(p, { voice_call_as_assistant: { mode: 'manual', undoDelaySec: 0 } });
    const { taskId, runId } = await h.stagingRun(p, [{ name: 'place_call', arguments: { to: restaurant, purpose: 'Confirm the dinner booking', script } }]);
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['pending_approval']);
    h.twilio.state.callScripts.push({ answeredBy: 'human', durationSec: 30 });
    h.realtime.state.usage = { ...USAGE };
    h.realtime.state.replies.push({ say: script, audioMs: 100 }, { say: 'Thank you, goodbye.', audioMs: 100, call: { name: 'end_call', arguments: { summary: 'Confirmed.' } } });
    h.realtime.state.callerTranscripts.push('Yes, that works.');
    h.onStream(async (m) => {
      await h.greeted();
      await m.speak();
      await m.closed;
      return 'ended';
    });
    const shown = await h.readCart(p, cart.id);
    expect((await h.approve(p, cart.id, { contentHash: shown.contentHash })).status).toBe(200);
    const placed = await h.until(async () => (h.twilio.calls.find((x) => x.to === restaurant)?.finished ? h.twilio.calls.find((x) => x.to === restaurant)! : null), 30_000);
    const session = h.realtime.sessions.at(-1)!;
    await h.realtime.until(() => session.closed);
    expect(session.responses).toHaveLength(2);
    const callRow = (await h.callRow(placed.sid))!;
    expect(callRow).toMatchObject({ direction: 'outbound', media: 'realtime', taskId, chatId: null, userId: p.id, assistantId: p.assistantId });

    // Two rows, on the run that placed the call (its cart's), at its tier, with the tokens as response.done reported them.
    const { body, rows } = await taskUsageOf(p, taskId, 2);
    const [run] = await h.db().select().from(taskRuns).where(eq(taskRuns.id, runId));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ runId, modelTier: run!.modelTier, inputTokens: 100, outputTokens: 40, cacheReadTokens: 20, cacheCreationTokens: 0, chargedCredits: PER_RESPONSE, isBillable: true });
    }
    expect(new Set(rows.map((r) => r.seq)).size).toBe(2);
    expect(body.credits.runs.find((r: { runId: string }) => r.runId === runId)).toMatchObject({ chargedCredits: 2 * PER_RESPONSE, isBillable: true });
    expect(body.credits.total).toBe(2 * PER_RESPONSE);
    expect(body.calls).toMatchObject({ calls: 1, seconds: 30, minutes: 1 });
    // The task's account and no other.
    const written = await h.db().select().from(taskModelCalls).where(and(eq(taskModelCalls.taskId, taskId), eq(taskModelCalls.model, 'stand-in-realtime-1')));
    expect(written.map((r) => r.accountId)).toEqual([callRow.accountId, callRow.accountId]);
    expect((await settledBudget(p, budget)).spentCredits).toBe(2 * PER_RESPONSE);

    // The same responses counted again for the call (a writer that starts over: a reconnect, a redelivery of what was counted) write and charge nothing.
    const planned = (await planCall(h.db(), callRow))!;
    expect(planned.home).toMatchObject({ id: null, modelTier: run!.modelTier, run: { runId } });
    const again = liveUsage(h.db(), planned.home, callRow.id, realtimeConfig()!, { ref: 'call', what: 'The live call' });
    expect(await again.begin()).toBeNull();
    expect(await again.record({ ...USAGE })).toBeNull();
    expect(await again.record({ ...USAGE })).toBeNull();
    await again.close(null);
    expect(await h.db().select().from(taskModelCalls).where(and(eq(taskModelCalls.taskId, taskId), eq(taskModelCalls.model, 'stand-in-realtime-1')))).toHaveLength(2);
    expect((await settledBudget(p, budget)).spentCredits).toBe(2 * PER_RESPONSE);
  }, 60_000);
});

describe('a live call and a spent budget', () => {
  it('spent before the call: no model session; the owner hears why and the call ends', async () => {
    const p = await h.owner();
    const budget = await budgetFor(p, 0);
    const sessions = h.realtime.sessions.length;
    let closeCode = 0;
    h.onStream(async (m) => {
      closeCode = (await m.closed).code;
      return 'ended';
    });
    const c = await h.twilio.call({ from: p.phone, to: p.line, says: ['Hello?'] });
    expect(closeCode).toBe(1000);
    expect(h.realtime.sessions.length).toBe(sessions);
    expect(c.requests.at(-1)!.url).toContain('/voice/streamed?');
    expect(c.heard).toEqual([OWNER_SORRY]);
    expect(c.ended).toBe('hangup');
    const row = (await h.callRow(c.callSid))!;
    expect(row.reason).toContain(`budget_spent: The live call cannot start: the user budget ${budget} has no credits left`);
    expect(row.transcript.map((l) => l.text)).toEqual([OWNER_SORRY]);
    // Nothing was charged or held, and no model answered on the call's chat instead.
    expect(await settledBudget(p, budget)).toMatchObject({ spentCredits: 0, reservedCredits: 0 });
    const usage = await call(h.app(), `/chats/${row.chatId}/usage`, { key: p.key });
    expect(usage.status).toBe(200);
    expect(usage.body.rows).toEqual([]);
  });

  it('spent during the call: the response that spent it is the last; the owner hears why and the call ends', async () => {
    const p = await h.owner();
    const budget = await budgetFor(p, 5);
    h.realtime.state.usage = { ...USAGE };
    h.realtime.state.replies.push({ say: 'Hi!', audioMs: 100 }, { say: 'Friday at three.', audioMs: 100 }, { say: 'Anything else?', audioMs: 100 });
    h.realtime.state.callerTranscripts.push('When is my dentist appointment?');
    let closeCode = 0;
    h.onStream(async (m) => {
      await h.greeted();
      await m.speak();
      closeCode = (await m.closed).code;
      return 'ended';
    });
    const c = await h.twilio.call({ from: p.phone, to: p.line });
    expect(closeCode).toBe(1000);
    const session = h.realtime.sessions.at(-1)!;
    await h.realtime.until(() => session.closed);
    // The second response took the budget past its limit: no third was asked for.
    expect(session.responses).toHaveLength(2);
    expect(c.heard).toEqual([OWNER_SORRY]);
    expect(c.ended).toBe('hangup');
    expect((await h.callRow(c.callSid))!.reason).toContain(`budget_spent: The live call stopped: the user budget ${budget} has no credits left`);
    const [chat] = await h.voiceChats(p);
    expect((await usageOf(p, chat!.id, 2)).row.chargedCredits).toBe(2 * PER_RESPONSE);
    expect((await settledBudget(p, budget)).spentCredits).toBe(2 * PER_RESPONSE);
  });

  it('someone leaving a message while the owner’s budget is spent: the message is taken in turns, without the model', async () => {
    const p = await h.owner({ talkToStrangers: true });
    await budgetFor(p, 0);
    const sessions = h.realtime.sessions.length;
    h.onStream(async (m) => {
      await m.closed;
      return 'ended';
    });
    const c = await h.twilio.call({ from: h.nextNumber(), to: p.line, says: ['Tell them the parcel arrived.'] });
    expect(h.realtime.sessions.length).toBe(sessions);
    // The turns' greeting (the recording disclosure first, as the harness's assistant has it), then their message, then thanks.
    expect(c.heard).toHaveLength(3);
    expect(c.heard[1]).toContain('Please tell me your message');
    expect(c.heard[2]).toContain('I will pass your message on');
    const row = (await h.callRow(c.callSid))!;
    expect(row.media).toBe('turns');
    expect(row.transcript.map((l) => [l.speaker, l.text])).toEqual([
      ['assistant', c.heard[0]],
      ['assistant', c.heard[1]],
      ['caller', 'Tell them the parcel arrived.'],
      ['assistant', c.heard[2]],
    ]);
    expect(await h.messagesOf(p, row.chatId!)).toEqual([expect.objectContaining({ content: 'Tell them the parcel arrived.' })]);
  });

  it('a placed call whose owner’s budget is spent: the approved words in turns, and the task is told why', async () => {
    const p = await h.owner();
    const restaurant = h.nextNumber();
    const script = 'Hello, this is Ada calling to confirm a table for two on Friday at 8. Does that still work?';
    await h.cells(p, { voice_call_as_assistant: { mode: 'manual', undoDelaySec: 0 } });
    const { taskId, runId } = await h.stagingRun(p, [{ name: 'place_call', arguments: { to: restaurant, purpose: 'Confirm the dinner booking', script } }]);
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['pending_approval']);
    // The budget is spent once the call is approved: the model may not talk on it.
    const budget = await budgetFor(p, 0);
    h.twilio.state.callScripts.push({ answeredBy: 'human', says: ['Yes, that works.'] });
    h.onStream(async (m) => {
      await m.closed;
      return 'ended';
    });
    const sessions = h.realtime.sessions.length;
    const shown = await h.readCart(p, cart.id);
    expect((await h.approve(p, cart.id, { contentHash: shown.contentHash })).status).toBe(200);
    const placed = await h.until(async () => (h.twilio.calls.find((x) => x.to === restaurant)?.finished ? h.twilio.calls.find((x) => x.to === restaurant)! : null), 30_000);
    expect(placed.conversation!.streams).toHaveLength(1);
    expect(h.realtime.sessions.length).toBe(sessions);
    // The disclosure and the approved words, as a call in turns begins (the callee heard nothing before).
    expect(placed.conversation!.heard.slice(0, 2)).toEqual([expect.stringContaining('This call is transcribed'), script]);
    expect(placed.conversation!.heard).toContain('Thank you, I will pass that on. Is there anything else?');
    const activity = await h.until(
      async () => (await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'contact'), eq(taskActivities.platform, 'voice'))))[0] ?? null,
      20_000,
    );
    expect(activity.content).toContain(`The live call cannot start: the user budget ${budget} has no credits left`);
    expect(activity.content).toContain(`${restaurant}: Yes, that works.`);
  });
});
