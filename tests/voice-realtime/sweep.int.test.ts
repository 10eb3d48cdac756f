import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { taskActivities, voiceCalls } from '@/db/schema';
import { sweepCalls } from '@/server/messaging/voice-sweep';
import { call } from '../helpers/client';
import { useRealtimeHarness } from './harness';

/*
 * Issue 48, no call unaccounted for: a call whose final status callback never came is asked about
 * at Twilio (GET Calls/{sid}.json) by the sweep, and closed as the callback would have closed it;
 * a placed call's outcome then reaches its task, once.
 */

const h = useRealtimeHarness('+1628559');
const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);

describe('the call sweep', () => {
  it('closes a placed call whose final status never came, and its outcome wakes the task once', async () => {
    const p = await h.owner();
    await h.cells(p, { voice_call_as_assistant: { mode: 'auto', undoDelaySec: 0 } });
    const to = h.nextNumber();
    h.twilio.state.callScripts.push({ answeredBy: 'human', durationSec: 33 });
    h.twilio.state.dropNextFinalStatus = true;
    // The callee hangs up as soon as the stream opens.
    const { taskId } = await h.stagingRun(p, [{ name: 'place_call', arguments: { to, purpose: 'Ask whether the parcel arrived' } }]);
    const placed = await h.until(async () => (h.twilio.calls.find((c) => c.to === to)?.finished ? h.twilio.calls.find((c) => c.to === to)! : null), 30_000);
    expect(placed.statuses.map((s) => s.status)).not.toContain('completed');
    const [open] = await h.db().select().from(voiceCalls).where(eq(voiceCalls.callSid, placed.sid));
    expect(open).toMatchObject({ endedAt: null, status: 'in_progress' });

    // Too young to be asked about.
    expect(await sweepCalls(h.db())).toEqual({ asked: 0, closed: 0 });
    const swept = await sweepCalls(h.db(), later(11));
    expect(swept.closed).toBeGreaterThanOrEqual(1);
    const [closed] = await h.db().select().from(voiceCalls).where(eq(voiceCalls.callSid, placed.sid));
    expect(closed).toMatchObject({ status: 'completed', outcome: 'answered', durationSec: 33 });
    expect(closed!.endedAt).toBeTruthy();
    const activities = await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'contact'), eq(taskActivities.platform, 'voice')));
    expect(activities).toHaveLength(1);
    expect(activities[0]!.content).toContain(`Outcome from ${to} of the call you placed: answered (33 s).`);
    expect(closed!.reportedActivityId).toBe(activities[0]!.id);
    // The call's minutes are in the task's usage (rounded up per call, as carriers bill).
    const usage = await call(h.app(), `/tasks/${taskId}/usage`, { key: p.key });
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    expect(usage.body.calls).toEqual({ calls: 1, seconds: 33, minutes: 1 });
    // Asked again, nothing changes.
    await sweepCalls(h.db(), later(30));
    expect(await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'contact'), eq(taskActivities.platform, 'voice')))).toHaveLength(1);
  });

  it('a call Twilio has no record of is closed failed', async () => {
    const p = await h.owner();
    const callSid = `CA${'e'.repeat(32)}`;
    const params = { AccountSid: h.twilio.accountSid, CallSid: callSid, From: p.phone, To: p.line, CallStatus: 'ringing', Direction: 'inbound', StirVerstat: 'TN-Validation-Passed-A' };
    expect((await h.twilio.post(h.twilio.state.voiceUrl!, params)).status).toBe(200);
    const first = await sweepCalls(h.db(), later(11));
    expect(first.closed).toBeGreaterThanOrEqual(1);
    const [row] = await h.db().select().from(voiceCalls).where(eq(voiceCalls.callSid, callSid));
    expect(row).toMatchObject({ status: 'failed', reason: 'Twilio has no record of this call' });
    expect(row!.endedAt).toBeTruthy();
  });
});
