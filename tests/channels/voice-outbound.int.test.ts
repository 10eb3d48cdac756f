import { and, eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assistants, taskActivities, taskRuns, voiceCalls } from '@/db/schema';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import { callingAdapter } from '@/server/channels/adapters';
import { placeTwilioCall } from '@/server/channels/voice/dial';
import { useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { type TwilioFake } from '../helpers/twilio-fake';
import { useTwilioFake } from '../helpers/use-twilio-fake';

/*
 * Issue 35, calls the assistant places: place_call stages a dispatch {type: "call"} under
 * voice_call_as_assistant (auto by default) or voice_call_as_user (manual by default), released
 * as any other; the loopback Twilio's Calls API sees exactly one request per released dispatch;
 * undoDelaySec holds the dial; the call's outcome and transcript come back to the task as an
 * activity that wakes it.
 */

const h = useCartHarness();
const twilio = useTwilioFake('+1415666', (f) => {
  f.state.voiceUrl = `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/voice`;
});
const { nextNumber } = twilio;
let fake: TwilioFake;
beforeAll(() => {
  fake = twilio.fake;
});
beforeEach(() => {
  fake.state.refuseNext = null;
  fake.state.callScripts.length = 0;
});

async function caller() {
  const acct = await newAccount(h.app());
  const p = await h.person(acct);
  const request = await call(h.app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { voice: true } } });
  expect(request.status, JSON.stringify(request.body)).toBe(201);
  const line = nextNumber();
  await assignPhoneLine(h.db(), { requestId: request.body.request.id, number: line, channels: 'voice' });
  await h.db().update(assistants).set({ talkToStrangers: false }).where(eq(assistants.id, p.assistantId));
  return { ...p, line };
}

const placeCallTool = (to: string, args: Record<string, unknown> = {}) => ({ name: 'place_call', arguments: { to, purpose: 'Confirm the dinner booking for Friday', script: 'Hello, this is Ada calling to confirm a table for two on Friday at 8. Does that still work?', ...args } });

const callActivity = (taskId: string) =>
  h.until(async () => {
    const [a] = await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'contact'), eq(taskActivities.platform, 'voice')));
    return a ?? null;
  }, 20_000);

/** The task was woken by the call's outcome: a run read it (the scripted model saw the report as untrusted data). */
const readByARun = (needle: string) =>
  h.until(async () => {
    const req = h.state.llm.requests.find((r) => r.messages.some((m: any) => typeof m.content === 'string' && m.content.includes(needle) && m.content.includes('<untrusted-data source="contact:voice"')));
    return req ?? null;
  }, 20_000);

describe('place_call', () => {
  it('waits for approval (voice_call_as_user is manual), is placed once after approval, and what the callee said wakes the task', async () => {
    const p = await caller();
    await h.cells(p, { voice_call_as_user: { undoDelaySec: 0 } });
    const restaurant = nextNumber();
    const { taskId, runId } = await h.stagingRun(p, [placeCallTool(restaurant, { asUser: true })]);
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['pending_approval']);
    const shown = await h.readCart(p, cart.id);
    expect(shown.dispatches[0]).toMatchObject({
      type: 'call',
      platform: 'voice',
      actionType: 'voice_call_as_user',
      to: [restaurant],
      body: 'Hello, this is Ada calling to confirm a table for two on Friday at 8. Does that still work?',
      payload: { purpose: 'Confirm the dinner booking for Friday', asUser: true },
      deliveryState: 'staged',
    });
    await h.settle(500);
    expect(fake.calls).toEqual([]);

    fake.state.callScripts.push({ answeredBy: 'human', says: ['Yes, Friday at 8 works, see you then.'] });
    const approved = await h.approve(p, cart.id, { contentHash: shown.contentHash });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    await h.cartReaches(cart.id, ['executed']);
    const placed = await h.until(async () => (fake.calls[0]?.finished ? fake.calls[0] : null), 20_000);
    expect(fake.callsTo(restaurant)).toHaveLength(1);
    expect(placed).toMatchObject({ from: p.line, to: restaurant });
    expect(placed.params).toMatchObject({ MachineDetection: 'DetectMessageEnd', Method: 'POST' });
    expect(placed.url).toMatch(/\/api\/channels\/twilio\/voice\/answer\?call=[0-9a-f]{24}$/);
    // The callee heard the disclosure and the approved words, then was listened to.
    expect(placed.conversation!.heard).toEqual([
      expect.stringMatching(/^This call is transcribed/),
      'Hello, this is Ada calling to confirm a table for two on Friday at 8. Does that still work?',
      'Thank you, I will pass that on. Is there anything else?',
    ]);
    const dispatch = await h.dispatchRow(cart.id);
    expect(dispatch).toMatchObject({ deliveryState: 'provider_accepted', providerMessageId: placed.sid });

    const activity = await callActivity(taskId);
    expect(activity.content).toContain(`Outcome from ${restaurant} of the call you placed: answered (14 s).`);
    expect(activity.content).toContain(`${restaurant}: Yes, Friday at 8 works, see you then.`);
    expect(activity.runId).toBeTruthy();
    await readByARun('Yes, Friday at 8 works');
    const [row] = await h.db().select().from(voiceCalls).where(eq(voiceCalls.callSid, placed.sid));
    expect(row).toMatchObject({ direction: 'outbound', outcome: 'answered', status: 'completed', taskId, reportedActivityId: activity.id, durationSec: 14 });

    // Exactly once: the same dispatch job again finds its call and dials nobody.
    const again = await placeTwilioCall(h.db(), {
      to: restaurant,
      purpose: 'x',
      script: 'y',
      asUser: true,
      idempotencyKey: row!.intentKey!.slice('dispatch:'.length),
      accountId: row!.accountId,
      assistantId: row!.assistantId,
      userId: p.id,
      taskId,
      dispatchId: row!.dispatchId!,
    });
    expect(again).toEqual({ state: 'accepted', providerMessageId: placed.sid });
    expect(fake.calls).toHaveLength(1);
    // The call's status callback delivered again reports nothing twice.
    const last = placed.statuses.at(-1)!;
    expect(last.status).toBe('completed');
    const activities = await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.platform, 'voice')));
    expect(activities).toHaveLength(1);
  });

  it('as the assistant (auto) it is held for undoDelaySec before dialling; no answer reaches the task and wakes it', async () => {
    const p = await caller();
    await h.cells(p, { voice_call_as_assistant: { undoDelaySec: 2 } });
    const shop = nextNumber();
    fake.state.callScripts.push({ result: 'no-answer' });
    const { taskId, runId } = await h.stagingRun(p, [placeCallTool(shop, { script: undefined })]);
    const cart = await h.cartOfRun(runId);
    const held = await h.until(async () => {
      const d = await h.dispatchRow(cart.id);
      return d?.deliveryState === 'held' ? d : null;
    }, 10_000);
    expect(held.holdUntil).toBeTruthy();
    expect(fake.callsTo(shop)).toEqual([]);
    const snapshots = await call(h.app(), `/portal/carts/${cart.id}/snapshots`, { key: p.key });
    expect(snapshots.body.snapshots[0]).toMatchObject({ dispatchType: 'call', resourceType: 'call', canUndo: true });

    const placed = await h.until(async () => (fake.callsTo(shop)[0]?.finished ? fake.callsTo(shop)[0] : null), 20_000);
    expect(placed.conversation).toBeNull();
    const activity = await callActivity(taskId);
    expect(activity.content).toMatch(new RegExp(`^Outcome from \\${shop} of the call you placed: no answer\\.`));
    const woken = await h.until(async () => {
      const runs = await h.db().select().from(taskRuns).where(eq(taskRuns.taskId, taskId));
      return runs.find((r) => r.id === activity.runId && r.status === 'finished') ?? null;
    }, 20_000);
    expect(woken.id).not.toBe(runId);
    await readByARun('no answer');
    // Without a script the assistant's words said who calls and why (what the person approved, or let go).
    const [row] = await h.db().select().from(voiceCalls).where(eq(voiceCalls.callSid, placed.sid));
    expect(row!.script).toMatch(/^Hello, this is .+, .+'s assistant\. I am calling about Confirm the dinner booking for Friday\.$/);
    expect(row).toMatchObject({ outcome: 'no_answer', status: 'no_answer' });
  });

  it('a voicemail gets the approved words as a message', async () => {
    const p = await caller();
    await h.cells(p, { voice_call_as_assistant: { undoDelaySec: 0 } });
    const office = nextNumber();
    fake.state.callScripts.push({ answeredBy: 'machine_end_beep' });
    const { taskId } = await h.stagingRun(p, [placeCallTool(office)]);
    const placed = await h.until(async () => (fake.callsTo(office)[0]?.finished ? fake.callsTo(office)[0] : null), 20_000);
    expect(placed.conversation!.heard).toEqual(['Hello, this is Ada calling to confirm a table for two on Friday at 8. Does that still work?']);
    expect(placed.conversation!.ended).toBe('hangup');
    const activity = await callActivity(taskId);
    expect(activity.content).toContain('their voicemail answered, and your words were left as a message');
  });

  it('a Calls API answer that is lost leaves the call unknown, and it is never dialled again', async () => {
    const p = await caller();
    await h.cells(p, { voice_call_as_assistant: { undoDelaySec: 0 } });
    const lab = nextNumber();
    fake.state.refuseNext = { status: 503, code: 20500, message: 'Internal Server Error' };
    const { runId } = await h.stagingRun(p, [placeCallTool(lab)]);
    const cart = await h.cartOfRun(runId);
    await h.cartReaches(cart.id, ['executed', 'failed']);
    const dispatch = await h.dispatchRow(cart.id);
    expect(dispatch).toMatchObject({ deliveryState: 'unknown' });
    expect(dispatch!.failureReason).toContain('may or may not have been placed');
    const [row] = await h.db().select().from(voiceCalls).where(eq(voiceCalls.dispatchId, dispatch!.id));
    expect(row).toMatchObject({ status: 'unknown', callSid: null });
    const again = await placeTwilioCall(h.db(), { to: lab, purpose: 'x', script: 'y', asUser: false, idempotencyKey: row!.intentKey!.slice('dispatch:'.length), accountId: row!.accountId, assistantId: row!.assistantId, userId: p.id, taskId: row!.taskId!, dispatchId: row!.dispatchId! });
    expect(again.state).toBe('unknown');
    expect(fake.callsTo(lab)).toEqual([]);
  });

  it('a call placed whose answer was lost is unknown and not dialled again; Twilio’s signed callbacks then settle it and its outcome reaches the task', async () => {
    const p = await caller();
    await h.cells(p, { voice_call_as_assistant: { undoDelaySec: 0 } });
    const clinic = nextNumber();
    fake.state.loseNextCallAnswer = true;
    fake.state.callScripts.push({ answeredBy: 'human', says: ['The appointment is moved to Monday.'] });
    const { taskId, runId } = await h.stagingRun(p, [placeCallTool(clinic)]);
    const cart = await h.cartOfRun(runId);
    await h.cartReaches(cart.id, ['executed', 'failed']);
    const placed = await h.until(async () => (fake.callsTo(clinic)[0]?.finished ? fake.callsTo(clinic)[0] : null), 20_000);
    const activity = await callActivity(taskId);
    expect(activity.content).toContain(`${clinic}: The appointment is moved to Monday.`);
    const dispatch = await h.dispatchRow(cart.id);
    expect(dispatch).toMatchObject({ deliveryState: 'provider_accepted', providerMessageId: placed.sid, failureReason: null });
    expect(fake.callsTo(clinic)).toHaveLength(1);
    const [row] = await h.db().select().from(voiceCalls).where(eq(voiceCalls.dispatchId, dispatch!.id));
    expect(row).toMatchObject({ callSid: placed.sid, outcome: 'answered' });
  });

  it('is refused as a tool input without an E.164 number, and fails (nobody called) when the assistant has no voice line', async () => {
    const acct = await newAccount(h.app());
    const p = await h.person(acct);
    await h.cells(p, { voice_call_as_assistant: { undoDelaySec: 0 } });
    const target = nextNumber();
    const { runId } = await h.stagingRun(p, [placeCallTool('call my mum'), placeCallTool(target)]);
    const tools = h.state.llm.requests.flatMap((r) => r.messages.filter((m: any) => m.role === 'tool').map((m: any) => String(m.content)));
    expect(tools.join('\n')).toContain('must be a phone number in E.164 form');
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['failed']);
    const dispatch = await h.dispatchRow(cart.id);
    expect(dispatch).toMatchObject({ type: 'call', deliveryState: 'failed' });
    expect(dispatch!.failureReason).toContain('no number for calls');
    expect(fake.callsTo(target)).toEqual([]);
  });

  it('is asked through the port’s calls capability: with Twilio switched off, an approved call fails with the reason and nobody is called', async () => {
    const p = await caller();
    await h.cells(p, { voice_call_as_assistant: { undoDelaySec: 0 } });
    const target = nextNumber();
    const voice = callingAdapter('voice');
    expect(voice?.capabilities.calls).toBe(true);
    expect(voice?.configured()).toBe(true);
    const sid = process.env.TWILIO_ACCOUNT_SID;
    delete process.env.TWILIO_ACCOUNT_SID;
    try {
      expect(voice?.configured()).toBe(false);
      const { runId } = await h.stagingRun(p, [placeCallTool(target)]);
      const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['failed']);
      const dispatch = await h.dispatchRow(cart.id);
      expect(dispatch).toMatchObject({ type: 'call', deliveryState: 'failed', failureReason: 'no provider configured for voice' });
    } finally {
      process.env.TWILIO_ACCOUNT_SID = sid;
    }
    expect(fake.callsTo(target)).toEqual([]);
    expect(await h.db().select().from(voiceCalls).where(eq(voiceCalls.toNumber, target))).toEqual([]);
  });
});

describe('GET /voice/providers and channels.voice', () => {
  it('names the providers, whether each is configured, and their voices', async () => {
    const p = await caller();
    const res = await call(h.app(), '/voice/providers', { key: p.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byName = Object.fromEntries(res.body.providers.map((x: any) => [x.provider, x]));
    expect(byName.twilio).toMatchObject({ configured: true, usedFor: ['calls'], capabilities: { inboundCalls: true, outboundCalls: true } });
    expect(byName.twilio.voices).toContainEqual({ voiceId: 'Polly.Joanna-Neural', name: 'Joanna', language: 'en-US', gender: 'female' });
    expect(byName.openai).toMatchObject({ configured: false, usedFor: ['live_voice'], models: null, voices: [], defaultVoiceId: null });

    process.env.STEWARD_AUDIO_BASE_URL = 'http://127.0.0.1:9/v1';
    process.env.STEWARD_AUDIO_TRANSCRIBE_MODEL = 'whisper-1';
    try {
      const on = (await call(h.app(), '/voice/providers', { key: p.key })).body.providers.find((x: any) => x.provider === 'openai');
      expect(on).toMatchObject({ configured: true, capabilities: { transcription: true, speech: false }, models: { transcription: 'whisper-1', speech: null }, defaultVoiceId: 'alloy' });
      expect(JSON.stringify(on)).not.toContain('127.0.0.1');
    } finally {
      delete process.env.STEWARD_AUDIO_BASE_URL;
      delete process.env.STEWARD_AUDIO_TRANSCRIBE_MODEL;
    }
    expect((await call(h.app(), '/voice/providers', { key: null })).status).toBe(401);
  });

  it('channels.voice.status: none → provisioning (a request for voice) → active (a line with voice); a dismissed request → failed', async () => {
    const acct = await newAccount(h.app());
    const p = await h.person(acct);
    const voiceOf = async () => (await call(h.app(), `/assistants/${p.assistantId}`, { key: p.key })).body.assistant.channels.voice;
    expect(await voiceOf()).toEqual({ status: 'none', provisionedAt: null, recordingDisclosure: false });
    const first = await call(h.app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { voice: true } } });
    expect(await voiceOf()).toMatchObject({ status: 'provisioning', provisionedAt: null });
    const { dismissPhoneLine } = await import('@/server/channels/phone-lines');
    await dismissPhoneLine(h.db(), { requestId: first.body.request.id, reason: 'No numbers in that area' });
    expect(await voiceOf()).toMatchObject({ status: 'failed' });
    const second = await call(h.app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { voice: true, sms: true } } });
    expect(await voiceOf()).toMatchObject({ status: 'provisioning' });
    await assignPhoneLine(h.db(), { requestId: second.body.request.id, number: nextNumber(), channels: 'sms,voice' });
    const active = await voiceOf();
    expect(active).toMatchObject({ status: 'active', recordingDisclosure: true });
    expect(Date.parse(active.provisionedAt)).toBeGreaterThan(Date.now() - 60_000);
  });
});
