import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { voiceCalls } from '@/db/schema';
import { sweepCalls } from '@/server/messaging/voice-sweep';
import { useCartHarness } from '../approvals/execution-harness';
import { call } from '../helpers/client';
import { voiceLineOwner } from '../helpers/voice-line-owner';
import { startTwilioFake, type TwilioFake } from '../helpers/twilio-fake';

/*
 * Issue 48, call minutes in budgets: with STEWARD_VOICE_MINUTE_PRICE set, a call that reaches its
 * final status with a duration charges ceil(seconds / 60) × price to the budgets covering the
 * assistant's owner, as GET /budgets/{id} shows it; once per call, however often the final status
 * comes (a redelivered callback, the sweep). Unset: nothing is charged. The owner calls their
 * assistant (loopback Twilio) and hangs up without a question, so no model call costs anything.
 */

const h = useCartHarness();
let fake: TwilioFake;
const saved: Record<string, string | undefined> = {};
let numbers = 0;
const nextNumber = () => `+1628562${String(1000 + numbers++).padStart(4, '0')}`;
const PRICE = 0.75;

function setEnv(vars: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(vars)) {
    if (!(k in saved)) saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

beforeAll(async () => {
  fake = await startTwilioFake();
  setEnv({ ...fake.env(), STEWARD_VOICE_TRUST_CALLER_ID: undefined, STEWARD_REALTIME_URL: undefined, STEWARD_VOICE_MINUTE_PRICE: undefined });
  fake.state.voiceUrl = `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/voice`;
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await fake?.close();
});
beforeEach(() => setEnv({ STEWARD_VOICE_MINUTE_PRICE: String(PRICE) }));

/** An owner with a voice line and a verified phone, and a budget (account key) covering them. */
async function ownerWithBudget() {
  const p = await voiceLineOwner(h, nextNumber);
  const budget = await call(h.app(), '/budgets', { key: p.acctKey, body: { scope: 'user', scopeId: p.id, period: 'none', limitCredits: 100, alertThresholds: [1] } });
  expect(budget.status, JSON.stringify(budget.body)).toBe(201);
  return { ...p, budgetId: budget.body.budget.id as string };
}

/** The owner calls and hangs up at the first <Gather>: no question, no model call. */
async function ownerCalls(p: { phone: string; line: string }) {
  const c = await fake.call({ from: p.phone, to: p.line, says: [] });
  expect(c.ended).toBe('caller_hung_up');
  return c.callSid;
}

/** Twilio's final status callback (the number's StatusCallback: it names the call by CallSid). */
const finalStatus = (p: { phone: string; line: string }, callSid: string, seconds: number) =>
  fake.post(`${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/voice/status`, {
    AccountSid: fake.accountSid,
    ApiVersion: '2010-04-01',
    CallSid: callSid,
    Direction: 'inbound',
    From: p.phone,
    To: p.line,
    CallStatus: 'completed',
    CallDuration: String(seconds),
  });

/** The budget's current period as the owner reads it. */
const current = async (p: { key: string; budgetId: string }) => {
  const r = await call(h.app(), `/budgets/${p.budgetId}`, { key: p.key });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.budget.current as { spentCredits: number; reservedCredits: number; remainingCredits: number; alerted: number[] };
};

describe('call minutes in budgets', () => {
  it('a completed call of 61 s charges two started minutes to the owner’s budget, once, however often the final status comes', async () => {
    const p = await ownerWithBudget();
    const sid = await ownerCalls(p);
    expect((await current(p)).spentCredits).toBe(0);

    expect((await finalStatus(p, sid, 61)).status).toBe(204);
    const [row] = await h.db().select().from(voiceCalls).where(eq(voiceCalls.callSid, sid));
    expect(row).toMatchObject({ status: 'completed', durationSec: 61 });
    expect(await current(p)).toMatchObject({ spentCredits: 2 * PRICE, reservedCredits: 0, remainingCredits: 100 - 2 * PRICE });
    // The account admin sees the same figures.
    expect((await call(h.app(), `/budgets/${p.budgetId}`, { key: p.acctKey })).body.budget.current.spentCredits).toBe(2 * PRICE);
    // The 1% threshold was crossed by phone time alone, as a model call's spend would cross it.
    expect((await current(p)).alerted).toEqual([1]);

    // Twilio delivers the final status again (even claiming a longer call): nothing more is charged.
    expect((await finalStatus(p, sid, 61)).status).toBe(204);
    expect((await finalStatus(p, sid, 600)).status).toBe(204);
    expect((await current(p)).spentCredits).toBe(2 * PRICE);
  });

  it('a call the sweep closes is charged once, and its late final status charges nothing more', async () => {
    const p = await ownerWithBudget();
    const sid = await ownerCalls(p);
    // The final status never came: the sweep asks Twilio (the Call resource says completed, 20 s).
    await sweepCalls(h.db(), new Date(Date.now() + 11 * 60_000));
    const [row] = await h.db().select().from(voiceCalls).where(eq(voiceCalls.callSid, sid));
    expect(row).toMatchObject({ status: 'completed', durationSec: 20 });
    expect((await current(p)).spentCredits).toBe(PRICE);
    expect((await finalStatus(p, sid, 20)).status).toBe(204);
    expect((await current(p)).spentCredits).toBe(PRICE);
  });

  it('with the price unset, 0 or malformed, phone time is not billed and the status webhook still closes the call', async () => {
    for (const price of [undefined, '0', 'a lot']) {
      setEnv({ STEWARD_VOICE_MINUTE_PRICE: price });
      const p = await ownerWithBudget();
      const sid = await ownerCalls(p);
      expect((await finalStatus(p, sid, 61)).status, `price ${price}`).toBe(204);
      const [row] = await h.db().select().from(voiceCalls).where(eq(voiceCalls.callSid, sid));
      expect(row, `price ${price}`).toMatchObject({ status: 'completed', durationSec: 61 });
      expect((await current(p)).spentCredits, `price ${price}`).toBe(0);
    }
  });
});
