import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { taskActivities, voiceCalls } from '@/db/schema';
import { useRealtimeHarness } from './harness';

/*
 * Issue 48, calls the assistant places, live: an approved place_call dispatch is dialled; when a
 * person answers, the realtime model converses within the approved purpose and bounds. A callee
 * who asks for more gets a referral back to the owner and nothing is agreed; the outcome (summary,
 * agreements, referrals, transcript) wakes the task with the final status. Answering machine
 * detection follows the dispatch.
 */

const h = useRealtimeHarness('+1628558');
const PURPOSE = 'Confirm the dinner booking for Friday at 8 for two';
const SCRIPT = 'Hello, this is Ada calling to confirm a table for two on Friday at 8. Does that still work?';
const placeCall = (to: string, bounds: Record<string, unknown> = {}) => ({ name: 'place_call', arguments: { to, purpose: PURPOSE, script: SCRIPT, ...bounds } });

const callActivity = (taskId: string) =>
  h.until(async () => (await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'contact'), eq(taskActivities.platform, 'voice'))))[0] ?? null, 20_000);

/** place_call (with the bounds the model gave it: mayAgree, referBack, onMachine) staged and held for the owner (manual), then approved as shown. */
async function approvedCall(p: Awaited<ReturnType<typeof h.owner>>, to: string, bounds: Record<string, unknown> = {}) {
  await h.cells(p, { voice_call_as_assistant: { mode: 'manual', undoDelaySec: 0 } });
  const { taskId, runId } = await h.stagingRun(p, [placeCall(to, bounds)]);
  const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['pending_approval']);
  // The owner approves the bounds with the call: they are in the dispatch the cart shows.
  const shown = await h.readCart(p, cart.id);
  expect(shown.dispatches[0].payload).toMatchObject(bounds);
  const approved = await h.approve(p, cart.id, { contentHash: shown.contentHash });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  return { taskId, cartId: cart.id };
}

describe('an outbound call with a purpose', () => {
  it('stays within its purpose: a callee asking for more gets a referral back, nothing is agreed, and the outcome wakes the task', async () => {
    const p = await h.owner();
    const restaurant = h.nextNumber();
    h.twilio.state.callScripts.push({ answeredBy: 'human', durationSec: 42 });
    h.realtime.state.replies.push(
      { say: SCRIPT, audioMs: 200 },
      { call: { name: 'refer_to_owner', arguments: { request: 'Move the booking to Saturday and add two more people' } } },
      { call: { name: 'note_agreement', arguments: { what: 'Booking moved to Saturday for four' } } },
      { say: 'I will check with them and get back to you. Thank you, goodbye.', audioMs: 200, call: { name: 'end_call', arguments: { summary: 'Friday at 8 for two is confirmed; they asked to move it to Saturday for four, referred back.' } } },
    );
    h.realtime.state.callerTranscripts.push('Yes, Friday works. Could you also move it to Saturday and make it four people?');
    h.onStream(async (m) => {
      await h.greeted();
      await m.speak();
      await m.closed;
      return 'ended';
    });
    const { taskId } = await approvedCall(p, restaurant);
    const placed = await h.until(async () => (h.twilio.calls.find((c) => c.to === restaurant)?.finished ? h.twilio.calls.find((c) => c.to === restaurant)! : null), 30_000);
    expect(placed.params).toMatchObject({ MachineDetection: 'DetectMessageEnd' });
    expect(placed.conversation!.streams).toHaveLength(1);
    expect(placed.conversation!.ended).toBe('hangup');

    // The model was confined to the approved purpose, with the tools of a placed call only.
    const session = h.realtime.sessions.at(-1)!;
    const setup = session.updates[0]!.session;
    expect(setup.instructions).toContain(`The approved purpose of this call, and the only thing you may pursue on it: ${PURPOSE}`);
    expect(setup.instructions).toContain('You may not agree to anything');
    expect(setup.tools.map((t: { name: string }) => t.name)).toEqual(['refer_to_owner', 'note_agreement', 'end_call']);
    expect(session.events.find((e) => e.type === 'response.create')!.response.instructions).toContain(SCRIPT);
    // The agreement the model tried was refused and referred back instead.
    expect(session.functionOutputs.map((o) => o.output)).toEqual([
      expect.objectContaining({ ok: true }),
      expect.objectContaining({ error: expect.stringContaining('Nothing may be agreed on this call') }),
    ]);

    const [row] = await h.db().select().from(voiceCalls).where(eq(voiceCalls.callSid, placed.sid));
    expect(row).toMatchObject({ direction: 'outbound', media: 'realtime', outcome: 'answered', commitments: [], referrals: ['Move the booking to Saturday and add two more people', 'Booking moved to Saturday for four'] });
    const activity = await callActivity(taskId);
    expect(activity.content).toContain(`Outcome from ${restaurant} of the call you placed: answered (42 s).`);
    expect(activity.content).toContain('Summary: Friday at 8 for two is confirmed');
    expect(activity.content).toContain('Agreed: nothing.');
    expect(activity.content).toContain('Referred back to you (nothing was agreed about these): Move the booking to Saturday');
    expect(activity.content).toContain(`${restaurant}: Yes, Friday works. Could you also move it to Saturday`);
    expect(activity.runId).toBeTruthy();
  });

  it('with bounds that allow an agreement, it is recorded and reported', async () => {
    const p = await h.owner();
    const restaurant = h.nextNumber();
    h.twilio.state.callScripts.push({ answeredBy: 'human' });
    h.realtime.state.replies.push(
      { say: SCRIPT, audioMs: 100 },
      { call: { name: 'note_agreement', arguments: { what: 'Table at 8:30 instead of 8' } } },
      { say: 'Thank you, goodbye.', audioMs: 100, call: { name: 'end_call', arguments: { summary: 'Confirmed for 8:30.' } } },
    );
    h.realtime.state.callerTranscripts.push('We only have 8:30, is that fine?');
    h.onStream(async (m) => {
      await h.greeted();
      await m.speak();
      await m.closed;
      return 'ended';
    });
    const { taskId } = await approvedCall(p, restaurant, { mayAgree: 'a time up to 30 minutes later' });
    const activity = await callActivity(taskId);
    expect(h.realtime.sessions.at(-1)!.updates[0]!.session.instructions).toContain('What you may agree to on');
    expect(activity.content).toContain('Agreed within the approved bounds: Table at 8:30 instead of 8');
  });

  it('answering machine detection per the dispatch: onMachine hangup asks only for the verdict and leaves no message', async () => {
    const p = await h.owner();
    const restaurant = h.nextNumber();
    h.twilio.state.callScripts.push({ answeredBy: 'machine_start' as never });
    const sessions = h.realtime.sessions.length;
    const { taskId } = await approvedCall(p, restaurant, { onMachine: 'hangup' });
    const activity = await callActivity(taskId);
    const placed = h.twilio.calls.find((c) => c.to === restaurant)!;
    expect(placed.params).toMatchObject({ MachineDetection: 'Enable' });
    expect(placed.conversation!.heard).toEqual([]);
    expect(placed.conversation!.ended).toBe('hangup');
    expect(h.realtime.sessions.length).toBe(sessions);
    expect(activity.content).toContain('an answering machine answered, and no message was left (as approved)');
  });
});
