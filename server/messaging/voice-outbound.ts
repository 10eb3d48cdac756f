import { storableText } from '@/db/storable';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { cartDispatches, taskActivities, tasks, voiceCalls, type TranscriptLine, type VoiceCallOutcome, type VoiceCallRow, type VoiceCallStatus } from '@/db/schema';
import { failedDelivery as failed, type Delivery } from '@/server/channels/message';
import { realtimeConfig } from '@/server/channels/realtime/config';
import type { Verb } from '@/server/channels/twilio/twiml';
import type { VoiceParams } from '@/server/channels/twilio/voice-payloads';
import { chargeCallMinutes } from '@/server/budgets/call-minutes';
import { badRequest, notFound } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { MAX_MESSAGE_CHARS } from '@/server/tasks/contracts';
import { runForReply } from '@/server/tasks/inbound-reply';
import { answer, appendTranscript, appendTranscriptOnce, BUDGET_SPENT, budgetSpent, callContext, callOfStep, disclosureLine, line, streamVerbs, type CallContext } from './voice-calls';
import { stepUrl } from '@/server/channels/voice/urls';
import { realtimeFailed } from './voice-inbound';
import type { StepQuery } from './voice-inbound';

/*
 * Calls the assistant places (place_call, spec 5), once dialled by the voice adapter
 * (server/channels/voice/dial.ts, exactly once per released dispatch). The call itself: Twilio
 * waits for the end of a voicemail greeting (MachineDetection DetectMessageEnd) and then asks the `answer` step. A machine gets the approved words as a
 * voicemail; a person hears the recording disclosure (when on) and the approved words, then is
 * listened to (`reply` step, twice at most). Twilio's final status (completed, busy, no-answer,
 * failed, canceled) is the outcome: answered, voicemail, no_answer, busy or failed. It reaches the
 * task that staged the call as a `contact` activity (outside content: what the callee said, read by
 * the model as untrusted data, tainting the task) and wakes it, once.
 */

const MAX_CALLEE_ANSWERS = 2;

const isMachine = (answeredBy: string | null | undefined) => Boolean(answeredBy?.startsWith('machine'));

/**
 * Twilio named the call in a signed webhook: a dispatch whose Calls API answer was lost (`unknown`)
 * is now known to have been placed, as a text's status callback settles its dispatch.
 */
async function settleUnknownDispatch(db: Db, call: VoiceCallRow, callSid: string): Promise<void> {
  if (!call.dispatchId) return;
  await db
    .update(cartDispatches)
    .set({ deliveryState: 'provider_accepted', providerMessageId: callSid, failureReason: null })
    .where(and(eq(cartDispatches.id, call.dispatchId), eq(cartDispatches.deliveryState, 'unknown')));
  if (call.status === 'unknown') await db.update(voiceCalls).set({ status: 'queued', reason: null }).where(and(eq(voiceCalls.id, call.id), eq(voiceCalls.status, 'unknown')));
}

/** POST /channels/twilio/voice/answer: the callee (or their voicemail) picked up. */
export async function answerStep(db: Db, p: VoiceParams, q: Pick<StepQuery, 'call'>, now = new Date()): Promise<string> {
  const call = await callOfStep(db, q.call, p.CallSid);
  if (!call) throw notFound('Call');
  if (call.direction !== 'outbound') throw badRequest('call: not a call the assistant placed');
  await settleUnknownDispatch(db, call, p.CallSid);
  await db
    .update(voiceCalls)
    .set({ answeredBy: sql`coalesce(${voiceCalls.answeredBy}, ${p.AnsweredBy ?? 'unknown'})`, status: sql`CASE WHEN ${voiceCalls.endedAt} IS NULL THEN 'in_progress' ELSE ${voiceCalls.status} END` })
    .where(eq(voiceCalls.id, call.id));
  const ctx = await callContext(db, call);
  const script = call.script?.trim() || call.purpose || 'Hello.';
  let verbs: Verb[];
  if (p.AnsweredBy === 'fax') verbs = [{ hangup: true }];
  else if (isMachine(p.AnsweredBy)) verbs = call.terms?.onMachine === 'hangup' ? [{ hangup: true }] : [{ say: script }, { hangup: true }];
  // A person, and a realtime model configured: a live conversation within the approved purpose (issue 48); the model speaks the approved words first.
  else if (realtimeConfig() && call.callSid) return answer(ctx, await streamVerbs(db, { ...call, callSid: call.callSid }));
  else verbs = [{ gather: { action: stepUrl('reply', { call: call.id, n: 1 }), timeoutSec: 6, say: [...(ctx.disclosure ? [disclosureLine(ctx.ownerName)] : []), script] } }];
  // What was said goes into the transcript once, however often Twilio asks.
  const said = verbs.flatMap((v) => ('gather' in v ? v.gather.say : 'say' in v ? [v.say] : [])).map((t) => line('assistant', t, now));
  if (said.length) {
    await db
      .update(voiceCalls)
      .set({ transcript: sql`${voiceCalls.transcript} || ${JSON.stringify(said)}::jsonb` })
      .where(and(eq(voiceCalls.id, call.id), sql`jsonb_array_length(${voiceCalls.transcript}) = 0`));
  }
  return answer(ctx, verbs);
}

/** POST /channels/twilio/voice/reply: what the callee said after the assistant spoke (or silence). */
export async function replyStep(db: Db, p: VoiceParams, q: Pick<StepQuery, 'call' | 'n'>, now = new Date()): Promise<string> {
  const call = await callOfStep(db, q.call, p.CallSid);
  if (!call) throw notFound('Call');
  if (call.direction !== 'outbound') throw badRequest('call: not a call the assistant placed');
  const ctx = await callContext(db, call);
  const said = (p.SpeechResult ?? '').replace(/\s+/g, ' ').trim();
  const more = said && q.n < MAX_CALLEE_ANSWERS;
  const closing = !said ? 'Thank you. Goodbye.' : more ? 'Thank you, I will pass that on. Is there anything else?' : 'Thank you, I will pass that on. Goodbye.';
  if (said) {
    const [claimed] = await db
      .update(voiceCalls)
      .set({ exchanges: q.n, transcript: sql`${voiceCalls.transcript} || ${JSON.stringify([line('callee', said, now), line('assistant', closing, now)])}::jsonb` })
      .where(and(eq(voiceCalls.id, call.id), eq(voiceCalls.exchanges, q.n - 1)))
      .returning({ id: voiceCalls.id });
    if (!claimed) logger.info({ callId: call.id, n: q.n }, 'voice: a reply step came again; kept once');
  } else if (q.n > call.exchanges) await appendTranscript(db, call.id, [line('assistant', closing, now)]);
  return answer(ctx, more ? [{ gather: { action: stepUrl('reply', { call: call.id, n: q.n + 1 }), timeoutSec: 5, say: [closing] } }] : [{ say: closing }, { hangup: true }]);
}

const STATUS: Record<NonNullable<VoiceParams['CallStatus']>, VoiceCallStatus> = {
  queued: 'queued',
  initiated: 'initiated',
  ringing: 'ringing',
  'in-progress': 'in_progress',
  completed: 'completed',
  busy: 'busy',
  'no-answer': 'no_answer',
  failed: 'failed',
  canceled: 'canceled',
};
const FINAL: VoiceCallStatus[] = ['completed', 'busy', 'no_answer', 'failed', 'canceled'];
const LIVE: VoiceCallStatus[] = ['dialing', 'queued', 'initiated', 'ringing', 'in_progress', 'unknown'];

function outcomeOf(status: VoiceCallStatus, answeredBy: string | null): VoiceCallOutcome {
  if (status === 'completed') return answeredBy === 'fax' ? 'failed' : isMachine(answeredBy) ? 'voicemail' : 'answered';
  if (status === 'busy') return 'busy';
  if (status === 'no_answer' || status === 'canceled') return 'no_answer';
  return 'failed';
}

const OUTCOME_TEXT: Record<VoiceCallOutcome, string> = {
  answered: 'answered',
  voicemail: 'their voicemail answered, and your words were left as a message',
  no_answer: 'no answer',
  busy: 'the line was busy',
  failed: 'the call failed',
  refused: 'refused',
  unknown: 'not known',
};

/** The activity the task reads: Steward's account of the call, then the transcript (the callee's words are theirs). */
export function callReport(call: VoiceCallRow, outcome: VoiceCallOutcome, durationSec: number | null, reason: string | null): string {
  const lines = [
    `Outcome from ${call.toNumber} of the call you placed: ${outcome === 'voicemail' && call.terms?.onMachine === 'hangup' ? 'an answering machine answered, and no message was left (as approved)' : OUTCOME_TEXT[outcome]}${durationSec ? ` (${durationSec} s)` : ''}${reason ? `; ${reason}` : ''}.`,
    ...(call.purpose ? [`Purpose: ${call.purpose}`] : []),
  ];
  // A budget that stopped the live conversation (voice-bridge.ts): the rest of the call was the approved words in turns.
  if (budgetSpent(call)) lines.push(`${call.reason!.slice(BUDGET_SPENT.length + 1).trim()} The rest of the call was the approved words.`);
  if (call.summary) lines.push(`Summary: ${call.summary}`);
  if (call.media === 'realtime') {
    lines.push(call.commitments.length ? `Agreed within the approved bounds: ${call.commitments.join('; ')}` : 'Agreed: nothing.');
    if (call.referrals.length) lines.push(`Referred back to you (nothing was agreed about these): ${call.referrals.join('; ')}`);
  }
  const spoken = call.transcript.filter((l: TranscriptLine) => outcome === 'answered' || outcome === 'voicemail' || l.speaker !== 'assistant');
  if (spoken.length) lines.push('', 'Transcript:', ...spoken.map((l) => `${l.speaker === 'assistant' ? 'You' : call.toNumber}: ${l.text}`));
  const text = lines.join('\n');
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS - 40)}\n[transcript truncated]`;
}

/** The call ended: its outcome recorded and, for a call a task placed, reported to the task (once) and the task woken. */
async function finishOutbound(db: Db, callId: string, status: VoiceCallStatus, p: VoiceParams, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [call] = await tx.select().from(voiceCalls).where(eq(voiceCalls.id, callId)).for('update');
    if (!call || call.endedAt) return;
    const answeredBy = call.answeredBy ?? p.AnsweredBy ?? null;
    const outcome = outcomeOf(status, answeredBy);
    const reason = status === 'canceled' ? 'the call was canceled' : p.ErrorCode ? `Twilio error ${p.ErrorCode}` : null;
    const durationSec = p.CallDuration ?? null;
    let activityId: string | null = null;
    const [task] = call.taskId ? await tx.select().from(tasks).where(eq(tasks.id, call.taskId)).for('update') : [];
    if (task) {
      const run = await runForReply(tx, task, now);
      const [activity] = await tx
        .insert(taskActivities)
        .values({ taskId: task.id, accountId: task.accountId, kind: 'contact', platform: 'voice', content: storableText(callReport(call, outcome, durationSec, reason)), runId: run.runId, createdAt: sql`clock_timestamp()` })
        .returning({ id: taskActivities.id });
      activityId = activity!.id;
    }
    await tx.update(voiceCalls).set({ status, outcome, answeredBy, durationSec, reason: reason ?? call.reason, endedAt: now, reportedActivityId: activityId }).where(eq(voiceCalls.id, call.id));
    // Phone time in the owner's budgets, once per call (STEWARD_VOICE_MINUTE_PRICE; budgets/call-minutes.ts).
    await chargeCallMinutes(tx, { ...call, durationSec }, now);
  });
}

/** POST /channels/twilio/voice/status: a call's progress; its final status ends it. */
export async function statusStep(db: Db, p: VoiceParams, q: Pick<StepQuery, 'call'>, now = new Date()): Promise<void> {
  const call = await callOfStep(db, q.call, p.CallSid);
  if (!call) throw notFound('Call');
  const status = p.CallStatus ? STATUS[p.CallStatus] : null;
  if (call.direction === 'outbound') await settleUnknownDispatch(db, call, p.CallSid);
  if (!status) return;
  if (!FINAL.includes(status)) {
    await db.update(voiceCalls).set({ status }).where(and(eq(voiceCalls.id, call.id), isNull(voiceCalls.endedAt), inArray(voiceCalls.status, LIVE)));
    return;
  }
  if (call.direction === 'outbound') return finishOutbound(db, call.id, status, p, now);
  // The call is closed and its minutes charged together: only the delivery that closes it charges them.
  await db.transaction(async (tx) => {
    const [ended] = await tx
      .update(voiceCalls)
      .set({ status, durationSec: p.CallDuration ?? null, endedAt: now, outcome: sql`coalesce(${voiceCalls.outcome}, 'answered')` })
      .where(and(eq(voiceCalls.id, call.id), isNull(voiceCalls.endedAt)))
      .returning();
    if (ended) await chargeCallMinutes(tx, ended, now);
  });
}

/**
 * POST /channels/twilio/voice/streamed for a placed call: goodbye, or (the model failed, or a budget
 * covering the owner is spent: voice-bridge.ts) the approved words in turns, which need no model.
 */
export async function outboundStreamed(db: Db, ctx: CallContext, now = new Date()): Promise<string> {
  const call = ctx.call;
  const spent = budgetSpent(call);
  if (!realtimeFailed(call) && !spent) return answer(ctx, [{ hangup: true }]);
  await db.update(voiceCalls).set({ media: 'turns' }).where(eq(voiceCalls.id, call.id));
  const script = call.script?.trim() || call.purpose || 'Hello.';
  // A callee the model never spoke to (the budget was spent before it was opened) hears the approved words as a call in turns begins.
  const say = spent && !call.transcript.length ? [...(ctx.disclosure ? [disclosureLine(ctx.ownerName)] : []), script] : [`Sorry, the line had a problem. ${script}`];
  if (spent && !call.transcript.length) await appendTranscriptOnce(db, call.id, say.map((t) => line('assistant', t, now)));
  return answer(ctx, [{ gather: { action: stepUrl('reply', { call: call.id, n: call.exchanges + 1 }), timeoutSec: 6, say } }]);
}
