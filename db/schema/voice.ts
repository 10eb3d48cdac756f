import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/*
 * Phone calls on an assistant's number (issue 35; server/messaging/voice-*.ts): one row per call,
 * inbound (someone called the assistant's line) or outbound (an approved place_call dispatch).
 * An outbound row is the call's intent, written under the dispatch's key before Twilio's Calls
 * API is asked: a second attempt finds it and never dials again. Twilio's CallSid is written
 * after (and names the call in every later webhook). The transcript is what was said, line by
 * line: Steward's spoken lines and the other party's recognised speech (outside content).
 */

export const voiceCallDirections = ['inbound', 'outbound'] as const;
/** Twilio's call statuses (in-progress and no-answer written with underscores), `dialing` (intent recorded, Calls API not answered yet) and `unknown` (its answer was lost). */
export const voiceCallStatuses = ['dialing', 'queued', 'initiated', 'ringing', 'in_progress', 'completed', 'busy', 'no_answer', 'failed', 'canceled', 'unknown'] as const;
export type VoiceCallStatus = (typeof voiceCallStatuses)[number];
/** What came of a call, as the task (outbound) or the owner (inbound) is told. */
export const voiceCallOutcomes = ['answered', 'voicemail', 'no_answer', 'busy', 'failed', 'refused', 'unknown'] as const;
export type VoiceCallOutcome = (typeof voiceCallOutcomes)[number];

/** How a call is spoken: TwiML turns (<Gather>/<Say>) or a live media stream bridged to a realtime speech model (issue 48). */
export const voiceCallMedia = ['turns', 'realtime'] as const;

/**
 * An outbound call's approved bounds (the place_call dispatch's payload): what the assistant may
 * agree to on the owner's behalf, what it must refer back, and what an answering machine gets.
 */
export type VoiceCallTerms = { mayAgree: string | null; referBack: string | null; onMachine: 'voicemail' | 'hangup'; asUser: boolean };

export type TranscriptLine = {
  /** `assistant`: Steward said it (the model's reply, a script, a fixed line); `caller` (inbound) / `callee` (outbound): recognised speech of the other party. */
  speaker: 'assistant' | 'caller' | 'callee';
  text: string;
  at: string;
};

export const voiceCalls = pgTable(
  'voice_calls',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    assistantId: text('assistant_id').notNull(),
    /** The assistant's owner (whose task placed it, or whose line was called); null for a shared assistant. */
    userId: text('user_id'),
    direction: text('direction', { enum: voiceCallDirections }).notNull(),
    provider: text('provider', { enum: ['twilio'] }).notNull().default('twilio'),
    /** Twilio's CallSid (CA…): null only while an outbound call's Calls API request has not been answered. */
    callSid: text('call_sid'),
    /** Outbound: the dispatch job's key (cart, version, index): one call per released dispatch, ever. */
    intentKey: text('intent_key'),
    fromNumber: text('from_number').notNull(),
    toNumber: text('to_number').notNull(),
    /** Inbound: who called, by verified identifier (`owner`), or anyone else. */
    caller: text('caller', { enum: ['owner', 'stranger'] }),
    /** Inbound: whether the caller's number is proven (STIR/SHAKEN full attestation, or STEWARD_VOICE_TRUST_CALLER_ID=1); only a proven number names a user. */
    callerVerified: boolean('caller_verified').notNull().default(false),
    status: text('status', { enum: voiceCallStatuses }).notNull(),
    outcome: text('outcome', { enum: voiceCallOutcomes }),
    /** Twilio's answering-machine detection: human, machine_end_beep, fax, unknown… */
    answeredBy: text('answered_by'),
    chatId: text('chat_id'),
    taskId: text('task_id'),
    dispatchId: text('dispatch_id'),
    /** Outbound: what the call is for and what the assistant says (the approved dispatch's content). */
    purpose: text('purpose'),
    script: text('script'),
    transcript: jsonb('transcript').$type<TranscriptLine[]>().notNull().default([]),
    /** Speech results taken so far: the number in each Gather's action URL, so a repeated webhook is recognised. */
    exchanges: integer('exchanges').notNull().default(0),
    durationSec: integer('duration_sec'),
    reason: text('reason'),
    /** Outbound: the task activity that reported the outcome (written once). */
    reportedActivityId: text('reported_activity_id'),
    media: text('media', { enum: voiceCallMedia }).notNull().default('turns'),
    /** Twilio's media stream (MZ…) once the stream authenticated: a second stream for the call is refused. */
    streamSid: text('stream_sid'),
    /** Outbound: the approved purpose's bounds (null: agree to nothing beyond the purpose). */
    terms: jsonb('terms').$type<VoiceCallTerms>(),
    /** Realtime calls: what the assistant summed up, what it agreed within the terms, and what it referred back to the owner. */
    summary: text('summary'),
    commitments: jsonb('commitments').$type<string[]>().notNull().default([]),
    referrals: jsonb('referrals').$type<string[]>().notNull().default([]),
    /** The sweep last asked Twilio about a call whose final status had not come. */
    statusCheckedAt: ts('status_checked_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    endedAt: ts('ended_at'),
  },
  (t) => [
    uniqueIndex('voice_calls_call_sid').on(t.callSid).where(sql`${t.callSid} IS NOT NULL`),
    uniqueIndex('voice_calls_intent').on(t.intentKey).where(sql`${t.intentKey} IS NOT NULL`),
    index('voice_calls_dispatch').on(t.dispatchId),
    index('voice_calls_assistant').on(t.assistantId, t.createdAt),
    index('voice_calls_open').on(t.createdAt).where(sql`${t.endedAt} IS NULL`),
  ],
);

export type VoiceCallRow = typeof voiceCalls.$inferSelect;
