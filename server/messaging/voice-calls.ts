import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { assistants, chatMessages, users, voiceCalls, type AssistantRow, type TranscriptLine, type VoiceCallRow } from '@/db/schema';
import { twiml, type Verb, type Voice } from '@/server/channels/twilio/twiml';
import { callLanguage, callVoice } from '@/server/channels/voice-providers';
import { tailTurn } from '@/server/chats/stream-tail';
import { publicOrigin } from '@/server/http/public-origin';
import { streamToken } from './voice-stream-token';
import { stepUrl } from '@/server/channels/voice/urls';

/*
 * What the voice webhooks share (voice-inbound.ts, voice-outbound.ts): the call's row, the
 * assistant's voice and disclosure, the URLs Twilio is given (STEWARD_PUBLIC_URL + path, with the
 * call's id in the query: Twilio signs the whole URL), transcript lines, and the wait for a chat
 * turn's reply within Twilio's 15-second answer limit.
 */

/** Twilio's media streams connect here (spec 6, Voice conversations): voice-media.ts. */
export const MEDIA_PATH = '/api/channels/twilio/media';

/** The media stream's URL: the public origin with ws(s) for http(s). */
export function mediaUrl(): string {
  const origin = new URL(publicOrigin().origin);
  origin.protocol = origin.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${origin.origin}${MEDIA_PATH}`;
}

/**
 * A live conversation instead of turns (issue 48): <Connect><Stream> to the media WebSocket with
 * the call's signed token, then, once the stream ends, the `streamed` step (hang up, or carry on
 * in turns when the model failed). The call is marked `realtime` from here on.
 */
export async function streamVerbs(db: Db, call: VoiceCallRow, preface: Verb[] = []): Promise<Verb[]> {
  await db.update(voiceCalls).set({ media: 'realtime' }).where(eq(voiceCalls.id, call.id));
  const token = await streamToken(db, { callId: call.id, callSid: call.callSid! });
  return [...preface, { stream: { url: mediaUrl(), parameters: { token } } }, { redirect: stepUrl('streamed', { call: call.id }) }];
}

/**
 * The start of a live call's reason when a budget covering its owner was spent (voice-bridge.ts):
 * the model was not opened, or was closed; the `streamed` step goes on without it.
 */
export const BUDGET_SPENT = 'budget_spent';
export const budgetSpent = (call: Pick<VoiceCallRow, 'reason'>) => Boolean(call.reason?.startsWith(`${BUDGET_SPENT}:`));

/**
 * How long a webhook waits for a chat turn's reply before answering with a holding line and a
 * redirect to the `wait` step (STEWARD_VOICE_REPLY_WAIT_MS, default 9 s): Twilio gives a webhook
 * 15 seconds, and the answer must reach it before then.
 */
export function replyWaitMs(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.STEWARD_VOICE_REPLY_WAIT_MS);
  return Number.isFinite(n) && n >= 100 && n <= 12_000 ? n : 9_000;
}

/** How many holding lines a caller hears for one question before the assistant says it goes on working (about a minute in all by default). */
export const MAX_HOLDS = 5;

export type CallContext = { call: VoiceCallRow; assistant: AssistantRow; ownerName: string | null; voice: Voice; disclosure: boolean };

export async function callContext(tx: Tx, call: VoiceCallRow): Promise<CallContext> {
  const [assistant] = await tx.select().from(assistants).where(eq(assistants.id, call.assistantId));
  const [owner] = call.userId ? await tx.select({ name: users.name, firstName: users.firstName, email: users.email, voice: users.voice }).from(users).where(eq(users.id, call.userId)) : [];
  return {
    call,
    assistant: assistant!,
    ownerName: owner ? owner.firstName?.trim() || owner.name?.trim() || owner.email.split('@')[0]! : null,
    voice: voiceOf(assistant ?? null, owner),
    disclosure: disclosureOf(assistant ?? null),
  };
}

/** The assistant's voice, else its owner's (voice-providers.ts). */
export const voiceOf = (assistant: Pick<AssistantRow, 'voice'> | null, owner?: Pick<AssistantRow, 'voice'> | null): Voice => ({ voice: callVoice([assistant, owner]), language: callLanguage() });

/** channels.voice.recordingDisclosure: the transcript of every call is kept, and callers are told so first. */
export const disclosureOf = (assistant: Pick<AssistantRow, 'channels'> | null) => ((assistant?.channels as { voice?: { recordingDisclosure?: boolean } } | undefined)?.voice?.recordingDisclosure ?? false) === true;

export const disclosureLine = (ownerName: string | null) => `This call is transcribed, and the transcript is kept${ownerName ? ` for ${ownerName}` : ''}.`;

export const answer = (ctx: Pick<CallContext, 'voice'>, verbs: Verb[]) => twiml(verbs, ctx.voice);

export const line = (speaker: TranscriptLine['speaker'], text: string, at = new Date()): TranscriptLine => ({ speaker, text, at: at.toISOString() });

/** Appends lines to the call's transcript in one statement (concurrent webhooks of one call never lose a line). */
export async function appendTranscript(tx: Tx, callId: string, lines: TranscriptLine[]): Promise<void> {
  if (!lines.length) return;
  await tx
    .update(voiceCalls)
    .set({ transcript: sql`${voiceCalls.transcript} || ${JSON.stringify(lines)}::jsonb` })
    .where(eq(voiceCalls.id, callId));
}

/** Appends lines said once in a call (a repeated webhook finds its first line there and adds nothing). */
export async function appendTranscriptOnce(tx: Tx, callId: string, lines: TranscriptLine[]): Promise<void> {
  if (!lines.length) return;
  const first = JSON.stringify([{ speaker: lines[0]!.speaker, text: lines[0]!.text }]);
  await tx
    .update(voiceCalls)
    .set({ transcript: sql`${voiceCalls.transcript} || ${JSON.stringify(lines)}::jsonb` })
    .where(and(eq(voiceCalls.id, callId), sql`NOT (${voiceCalls.transcript} @> ${first}::jsonb)`));
}

/** The call a step's URL names, checked against the CallSid Twilio signed: a step of another call is refused. */
export async function callOfStep(db: Db, callId: string, callSid: string): Promise<VoiceCallRow | null> {
  const [call] = await db.select().from(voiceCalls).where(eq(voiceCalls.id, callId));
  if (!call) return null;
  if (call.callSid && call.callSid !== callSid) return null;
  if (!call.callSid) {
    // An outbound call Twilio answers before its Calls API answer was recorded: the URL's id (given to Twilio alone) names it.
    const [adopted] = await db
      .update(voiceCalls)
      .set({ callSid })
      .where(and(eq(voiceCalls.id, call.id), sql`${voiceCalls.callSid} IS NULL`))
      .returning();
    return adopted ?? (await db.select().from(voiceCalls).where(eq(voiceCalls.id, callId)))[0] ?? null;
  }
  return call;
}

export type TurnWait = { kind: 'answered'; messageId: string; text: string } | { kind: 'error'; code: string; message: string } | { kind: 'pending' };

/** Waits up to `ms` for the turn's final event (its reply or its error), as its stream would read it. */
export async function waitForTurn(db: Db, turnId: string, ms: number): Promise<TurnWait> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), ms);
  let out: TurnWait = { kind: 'pending' };
  try {
    await tailTurn(
      db,
      turnId,
      0,
      async (e) => {
        if ('comment' in e) return;
        if (e.event === 'message') {
          const m = (e.data as { message?: { id?: string; content?: string } }).message;
          out = { kind: 'answered', messageId: m?.id ?? '', text: m?.content ?? '' };
        } else if (e.event === 'error') {
          const d = e.data as { code?: string; message?: string };
          out = { kind: 'error', code: d.code ?? 'turn_failed', message: d.message ?? 'The turn failed' };
        }
      },
      stop.signal,
      Math.min(1_000, ms),
    );
  } finally {
    clearTimeout(timer);
  }
  return out;
}

/**
 * The reply was handed to Twilio in the TwiML: the chat message shows it was spoken (taken by
 * the provider, as a text's reply is once Twilio accepts it), and the call's transcript gets it,
 * once however often the webhook is repeated.
 */
export async function markSpoken(db: Db, call: VoiceCallRow, messageId: string, text: string, now = new Date()): Promise<void> {
  await db.transaction(async (tx) => {
    const [marked] = await tx
      .update(chatMessages)
      .set({
        deliveryState: 'provider_accepted',
        metadata: sql`${chatMessages.metadata} || ${JSON.stringify({ spoken: { callSid: call.callSid, at: now.toISOString() } })}::jsonb`,
      })
      .where(and(eq(chatMessages.id, messageId), sql`NOT (${chatMessages.metadata} ? 'spoken')`))
      .returning({ id: chatMessages.id });
    if (marked) await appendTranscript(tx, call.id, [line('assistant', text, now)]);
  });
}
