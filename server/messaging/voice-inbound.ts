import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, chatMessages, voiceCalls, type VoiceCallRow } from '@/db/schema';
import type { InboundChannelMessage } from '@/server/channels/message';
import { lineForNumber } from '@/server/channels/phone-lines';
import { realtimeConfig } from '@/server/channels/realtime/config';
import { E164 } from '@/server/channels/twilio/payloads';
import { spoken, twiml, type Verb } from '@/server/channels/twilio/twiml';
import type { VoiceParams } from '@/server/channels/twilio/voice-payloads';
import { startQueuedTurns, type QueuedChatTurn } from '@/server/chats/turn-queue';
import { learnFromCall } from '@/server/contacts/learned';
import { badRequest, notFound } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { whoIsWriting } from './identify';
import { routeInbound } from './inbound';
import {
  answer,
  appendTranscript,
  appendTranscriptOnce,
  budgetSpent,
  callContext,
  callOfStep,
  disclosureLine,
  line,
  markSpoken,
  MAX_HOLDS,
  replyWaitMs,
  streamVerbs,
  voiceOf,
  waitForTurn,
  type CallContext,
} from './voice-calls';
import { stepUrl } from '@/server/channels/voice/urls';

/*
 * A call to an assistant's number (issue 35), once Twilio's webhook is verified (voice-webhooks.ts).
 * The conversation is TwiML: <Gather input="speech"> around the assistant's line; Twilio speaks
 * it and posts what the caller said to the `speech` step. Who is calling is decided once, at the
 * start, by the channel layer's rule (identify.ts): the owner only when the caller's number is
 * proven (STIR/SHAKEN full attestation `TN-Validation-Passed-A`, or the operator's
 * STEWARD_VOICE_TRUST_CALLER_ID=1 where attestation does not reach) and is one of the owner's
 * verified numbers.
 *
 * - The owner: each thing they say is a message of their chat for this call (platform `voice`,
 *   one chat per call, the transcript kept there) and a durable chat turn answers it; the webhook
 *   waits for the turn's reply (at most STEWARD_VOICE_REPLY_WAIT_MS) and speaks it, or says a
 *   holding line and redirects Twilio to the `wait` step, which waits again.
 * - Anyone else, when the assistant talks to strangers: the assistant takes a message. What they
 *   say is kept in the owner's chat with that number (role `contact`, untrusted) and opens the
 *   stranger conversation (tasks/strangers.ts), whose answer waits for the owner. Nothing is
 *   answered live: a live reply to a stranger could not wait for the owner.
 * - Anyone else otherwise (or a shared assistant): a polite refusal, and nothing is kept but the
 *   call's row.
 */

const GOODBYE: Verb = { hangup: true };

export const callerIdProven = (p: Pick<VoiceParams, 'From' | 'StirVerstat'>, env: Record<string, string | undefined> = process.env) =>
  E164.test(p.From) && (p.StirVerstat === 'TN-Validation-Passed-A' || env.STEWARD_VOICE_TRUST_CALLER_ID?.trim() === '1');

type Mode = 'owner' | 'message' | 'refused' | 'unavailable';

function modeOf(call: VoiceCallRow): Mode {
  if (call.outcome === 'refused') return (call.reason ?? '').startsWith('unavailable') ? 'unavailable' : 'refused';
  return call.caller === 'owner' ? 'owner' : 'message';
}

/** What the assistant says first, and whether the caller is heard. */
function greeting(ctx: CallContext, mode: Mode): Verb[] {
  const name = ctx.assistant.name;
  const owner = ctx.ownerName ?? 'the person I work for';
  const disclosed = ctx.disclosure ? [disclosureLine(ctx.ownerName)] : [];
  if (mode === 'owner') return [{ gather: { action: stepUrl('speech', { call: ctx.call.id, n: 1 }), say: [...disclosed, `Hi ${owner}, it's ${name}. How can I help?`] } }];
  if (mode === 'message') {
    return [{ gather: { action: stepUrl('speech', { call: ctx.call.id, n: 1 }), timeoutSec: 8, say: [...disclosed, `Hello, you've reached ${name}, ${owner}'s assistant. ${owner} can't come to the phone. Please tell me your message, and I'll pass it on.`] } }];
  }
  if (mode === 'unavailable') return [{ say: `Sorry, ${name} can't take calls right now. Goodbye.` }, GOODBYE];
  return [{ say: `Hello, you've reached ${name}, an assistant that only takes calls from the person it works for. Please reach them another way. Goodbye.` }, GOODBYE];
}

/** POST /channels/twilio/voice: a call reached an assistant's number. */
export async function inboundCall(db: Db, p: VoiceParams, now = new Date()): Promise<string> {
  const found = E164.test(p.To) ? await lineForNumber(db, p.To, 'voice') : null;
  if (!found) {
    logger.info({ to: p.To }, 'voice: a call reached a number no assistant answers calls on; rejected');
    return twiml([{ reject: 'rejected' }], voiceOf(null));
  }
  const [seen] = await db.select().from(voiceCalls).where(eq(voiceCalls.callSid, p.CallSid));
  // Twilio asked again for the same call (its first answer was lost): the same greeting, nothing new kept.
  if (seen) {
    const again = await callContext(db, seen);
    const mode = modeOf(seen);
    if (seen.media === 'realtime' && !seen.streamSid && (mode === 'owner' || mode === 'message')) return answer(again, await streamVerbs(db, seen));
    return answer(again, greeting(again, mode));
  }
  const verified = callerIdProven(p);
  const call = await db.transaction(async (tx) => {
    const writer = await whoIsWriting(tx, found.accountId, found.assistantId, { kind: 'phone', value: p.From, proven: verified });
    const [account] = await tx.select({ frozen: accounts.killSwitch }).from(accounts).where(eq(accounts.id, found.accountId));
    const owner = writer?.kind === 'owner' ? writer.user : (writer?.owner ?? null);
    // The owner who cannot act now (blocked, frozen account) hears so; a stranger is refused unless the assistant takes messages for an owner who can.
    let mode: Mode;
    let reason: string | null = null;
    if (!writer) [mode, reason] = ['unavailable', 'unavailable: the assistant no longer exists'];
    else if (writer.kind === 'owner') [mode, reason] = account?.frozen ? ['unavailable', 'unavailable: the account is frozen'] : ['owner', null];
    else if (!writer.owner) [mode, reason] = ['refused', 'shared_assistant'];
    else if (!writer.assistant.talkToStrangers) [mode, reason] = ['refused', 'stranger_refused'];
    else if (account?.frozen || writer.owner.status !== 'active') [mode, reason] = ['refused', 'owner_cannot_act'];
    else mode = 'message';
    // A caller the assistant takes a message from, by a proven number no contact holds, becomes a contact (source: voice).
    if (mode === 'message' && verified && owner) await learnFromCall(tx, { accountId: found.accountId, userId: owner.id }, p.From);
    const [row] = await tx
      .insert(voiceCalls)
      .values({
        accountId: found.accountId,
        assistantId: found.assistantId,
        userId: owner?.id ?? null,
        direction: 'inbound',
        callSid: p.CallSid,
        fromNumber: p.From,
        toNumber: p.To,
        caller: writer?.kind === 'owner' ? 'owner' : 'stranger',
        callerVerified: verified,
        status: mode === 'owner' || mode === 'message' ? 'in_progress' : 'completed',
        outcome: mode === 'owner' || mode === 'message' ? null : 'refused',
        reason,
        endedAt: mode === 'owner' || mode === 'message' ? null : now,
      })
      .onConflictDoNothing()
      .returning();
    return row ?? (await tx.select().from(voiceCalls).where(eq(voiceCalls.callSid, p.CallSid)))[0]!;
  });
  const ctx = await callContext(db, call);
  const mode = modeOf(call);
  // With a realtime model the conversation is live (issue 48): the model greets, and every word is kept as it is spoken.
  if (realtimeConfig() && (mode === 'owner' || mode === 'message')) return answer(ctx, await streamVerbs(db, call));
  const verbs = greeting(ctx, mode);
  await appendTranscript(db, call.id, verbs.flatMap((v) => ('gather' in v ? v.gather.say : 'say' in v ? [v.say] : [])).map((t) => line('assistant', t, now)));
  return answer(ctx, verbs);
}

export type StepQuery = { call: string; n: number; s: number; h: number };

/** The message this exchange became: its provider id is the call's sid and the exchange number. */
const exchangeRef = (call: VoiceCallRow, n: number) => `${call.callSid}:${n}`;

async function turnOfExchange(db: Db, call: VoiceCallRow, n: number): Promise<string | null> {
  if (!call.chatId) return null;
  const [m] = await db
    .select({ turnId: chatMessages.turnId })
    .from(chatMessages)
    .where(and(eq(chatMessages.chatId, call.chatId), eq(chatMessages.referenceId, exchangeRef(call, n))));
  return m?.turnId ?? null;
}

/** POST /channels/twilio/voice/speech: what the caller said (SpeechResult), or nothing (silence). */
export async function speechStep(db: Db, p: VoiceParams, q: StepQuery, now = new Date()): Promise<string> {
  const call = await callOfStep(db, q.call, p.CallSid);
  if (!call) throw notFound('Call');
  if (call.direction !== 'inbound') throw badRequest('call: not a call to an assistant’s number');
  const ctx = await callContext(db, call);
  const mode = modeOf(call);
  if (mode === 'refused' || mode === 'unavailable') return answer(ctx, [GOODBYE]);
  const said = (p.SpeechResult ?? '').replace(/\s+/g, ' ').trim();
  if (!said && q.n > call.exchanges) {
    // Silence: asked once more, then goodbye.
    if (q.s >= 1) return answer(ctx, [{ say: 'I did not hear anything. Goodbye.' }, GOODBYE]);
    const again = mode === 'owner' ? 'Sorry, I did not catch that. What can I do for you?' : 'Sorry, I did not catch that. Please tell me your message.';
    return answer(ctx, [{ gather: { action: stepUrl('speech', { call: call.id, n: q.n, s: 1 }), say: [again] } }]);
  }
  return mode === 'owner' ? ownerSpeech(db, ctx, said, q, now) : strangerMessage(db, ctx, said, q, now);
}

/** The exchange `n` claimed once (concurrent or repeated webhooks find it claimed), routed by the channel layer. */
async function takeExchange(db: Db, call: VoiceCallRow, said: string, n: number, now: Date): Promise<{ fresh: boolean; turns: QueuedChatTurn[] }> {
  const turns: QueuedChatTurn[] = [];
  const fresh = await db.transaction(async (tx) => {
    turns.length = 0;
    const [claimed] = await tx
      .update(voiceCalls)
      .set({ exchanges: n })
      .where(and(eq(voiceCalls.id, call.id), eq(voiceCalls.exchanges, n - 1)))
      .returning({ id: voiceCalls.id });
    if (!claimed) return false;
    const msg: InboundChannelMessage = {
      channel: 'voice',
      platform: 'voice',
      accountId: call.accountId,
      assistantId: call.assistantId,
      sender: { kind: 'phone', value: call.fromNumber, proven: call.callerVerified },
      to: [call.toNumber],
      cc: [],
      providerMessageId: exchangeRef(call, n),
      threadRefs: [],
      threadKey: call.callSid,
      subject: null,
      text: said,
      attachments: [],
      automated: false,
      storedId: call.id,
    };
    const routed = await routeInbound(tx, msg);
    turns.push(...routed.turns);
    await tx
      .update(voiceCalls)
      .set({ chatId: sql`coalesce(${voiceCalls.chatId}, ${routed.chatId})`, taskId: sql`coalesce(${voiceCalls.taskId}, ${routed.taskId})`, transcript: sql`${voiceCalls.transcript} || ${JSON.stringify([line('caller', said, now)])}::jsonb` })
      .where(eq(voiceCalls.id, call.id));
    return true;
  });
  return { fresh, turns };
}

async function ownerSpeech(db: Db, ctx: CallContext, said: string, q: StepQuery, now: Date): Promise<string> {
  let turnId: string | null = null;
  let call = ctx.call;
  if (q.n > call.exchanges) {
    const taken = await takeExchange(db, call, said, q.n, now);
    if (taken.turns.length) await startQueuedTurns(db, taken.turns);
    turnId = taken.turns[0]?.turn.id ?? null;
    // The exchange gave the call its chat (or a repeated webhook took it first).
    call = (await db.select().from(voiceCalls).where(eq(voiceCalls.id, call.id)))[0]!;
  }
  turnId ??= await turnOfExchange(db, call, q.n);
  if (!turnId) return answer(ctx, [{ say: 'Sorry, I cannot act on that right now. Goodbye.' }, GOODBYE]);
  return speakTurn(db, { ...ctx, call }, turnId, q.n, 0);
}

const HOLDING = ['One moment.', 'Still working on it.', 'Just a moment more.'];

/** Waits for the exchange's turn and answers: its reply (and listen again), a holding line and a redirect, or its error. */
async function speakTurn(db: Db, ctx: CallContext, turnId: string, n: number, holds: number): Promise<string> {
  const w = await waitForTurn(db, turnId, replyWaitMs());
  if (w.kind === 'answered') {
    const text = spoken(w.text || 'Done.');
    await markSpoken(db, ctx.call, w.messageId, text);
    return answer(ctx, [{ gather: { action: stepUrl('speech', { call: ctx.call.id, n: n + 1 }), say: [text] } }]);
  }
  if (w.kind === 'error') {
    const why = w.code === 'credits_exhausted' ? 'your credits for this period are used up' : w.code === 'KILL_SWITCH_ENGAGED' ? 'this account is paused' : 'something went wrong';
    return answer(ctx, [{ say: `Sorry, I could not answer that: ${why}. Goodbye.` }, GOODBYE]);
  }
  if (holds < MAX_HOLDS) return answer(ctx, [{ say: HOLDING[holds % HOLDING.length]! }, { redirect: stepUrl('wait', { call: ctx.call.id, n, h: holds + 1 }) }]);
  return answer(ctx, [
    { gather: { action: stepUrl('speech', { call: ctx.call.id, n: n + 1 }), say: ['This is taking longer. I will keep working on it, and my answer will be in our chat. Is there anything else?'] } },
  ]);
}

/** POST /channels/twilio/voice/wait: the caller heard a holding line; the same exchange's reply is waited for again. */
export async function waitStep(db: Db, p: VoiceParams, q: StepQuery): Promise<string> {
  const call = await callOfStep(db, q.call, p.CallSid);
  if (!call || call.direction !== 'inbound') throw notFound('Call');
  const ctx = await callContext(db, call);
  const turnId = await turnOfExchange(db, call, q.n);
  if (!turnId) return answer(ctx, [{ say: 'Sorry, I lost track of that. Goodbye.' }, GOODBYE]);
  return speakTurn(db, ctx, turnId, q.n, q.h);
}

/** A stranger's message, taken once: kept for the owner (and their conversation opened), then thanks and goodbye. */
async function strangerMessage(db: Db, ctx: CallContext, said: string, q: StepQuery, now: Date): Promise<string> {
  const thanks = `Thank you. I will pass your message on to ${ctx.ownerName ?? 'them'}. Goodbye.`;
  if (q.n > ctx.call.exchanges) {
    const taken = await takeExchange(db, ctx.call, said, q.n, now);
    if (taken.turns.length) await startQueuedTurns(db, taken.turns);
    if (taken.fresh) await appendTranscript(db, ctx.call.id, [line('assistant', thanks, now)]);
  }
  return answer(ctx, [{ say: thanks }, GOODBYE]);
}

/**
 * POST /channels/twilio/voice/streamed: a live call's media stream ended without the caller
 * hanging up. The assistant ended it (end_call): goodbye. The realtime model failed: the call goes
 * on in turns, from where it was. A budget covering the owner is spent (voice-bridge.ts): the
 * owner hears so and goodbye, as a turn refused by the budget says (speakTurn); someone leaving a
 * message goes on in turns, which take a message without a model.
 */
export async function inboundStreamed(db: Db, ctx: CallContext): Promise<string> {
  const call = ctx.call;
  const mode = modeOf(call);
  const spent = budgetSpent(call);
  if (spent && mode === 'owner') {
    const sorry = 'Sorry, I cannot talk right now: your credits for this period are used up. Goodbye.';
    await appendTranscriptOnce(db, call.id, [line('assistant', sorry)]);
    return answer(ctx, [{ say: sorry }, GOODBYE]);
  }
  if (!realtimeFailed(call) && !spent) return answer(ctx, [GOODBYE]);
  if (mode !== 'owner' && mode !== 'message') return answer(ctx, [GOODBYE]);
  await db.update(voiceCalls).set({ media: 'turns' }).where(eq(voiceCalls.id, call.id));
  // A caller the model never greeted (the budget was spent before it was opened) hears the turns' greeting.
  if (spent && !call.transcript.length) {
    const verbs = greeting(ctx, mode);
    await appendTranscriptOnce(db, call.id, verbs.flatMap((v) => ('gather' in v ? v.gather.say : [])).map((t) => line('assistant', t)));
    return answer(ctx, verbs);
  }
  const ask = mode === 'owner' ? 'Sorry, the line had a problem. What can I do for you?' : 'Sorry, the line had a problem. Please tell me your message.';
  return answer(ctx, [{ gather: { action: stepUrl('speech', { call: call.id, n: call.exchanges + 1 }), say: [ask] } }]);
}

export const realtimeFailed = (call: Pick<VoiceCallRow, 'reason'>) => Boolean(call.reason?.startsWith('realtime_failed'));
