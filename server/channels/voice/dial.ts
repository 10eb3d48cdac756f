import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { voiceCalls, type VoiceCallRow } from '@/db/schema';
import { logger } from '@/server/logger';
import { DEFAULT_TERMS, type CallPlacement } from '../calls';
import { failedDelivery as failed, type Delivery } from '../message';
import { activeLineFor } from '../phone-lines';
import { createCall } from '../twilio/calls';
import { twilioConfig } from '../twilio/config';
import { E164 } from '../twilio/payloads';
import { stepUrl } from './urls';

/*
 * The voice adapter's dialler (the port's calls capability): an approved place_call, dialled
 * through Twilio's Calls API from the assistant's own number. What happens on the call is the
 * voice webhooks' (server/messaging/voice-*.ts), at the step URLs given here.
 *
 * Exactly once: the call's row (voice_calls) is written under the dispatch job's key before
 * Twilio's Calls API is asked, its CallSid after. A second attempt finds the row: placed (a sid)
 * is `accepted`, refused is `failed`, and a request whose answer was lost is `unknown` and is
 * never dialled again.
 */

function earlier(row: VoiceCallRow): Delivery {
  if (row.callSid) return { state: 'accepted', providerMessageId: row.callSid };
  if (row.status === 'failed') return failed(row.reason ?? 'the provider refused the call');
  return { state: 'unknown', providerMessageId: null, reason: 'A call of it had begun and its result was never recorded: it may or may not have been placed, so it was not placed again' };
}

/** Places one approved call through Twilio, exactly once per dispatch job. */
export async function placeTwilioCall(db: Db, c: CallPlacement, now = new Date()): Promise<Delivery> {
  const config = twilioConfig();
  if (!config) return failed('no provider configured for voice');
  if (!E164.test(c.to)) return failed(`${c.to} is not a phone number in E.164 form (+ and the country code): nobody was called`);
  const from = await activeLineFor(db, c.assistantId, 'voice');
  if (!from) return failed('The assistant has no number for calls (ask for a phone line with voice): nobody was called');
  if (from === c.to) return failed('The assistant cannot call its own number: nobody was called');
  const [intent] = await db
    .insert(voiceCalls)
    .values({
      accountId: c.accountId,
      assistantId: c.assistantId,
      userId: c.userId,
      direction: 'outbound',
      intentKey: `dispatch:${c.idempotencyKey}`,
      fromNumber: from,
      toNumber: c.to,
      status: 'dialing',
      taskId: c.taskId,
      dispatchId: c.dispatchId,
      purpose: c.purpose,
      script: c.script,
      terms: c.terms ?? { ...DEFAULT_TERMS, asUser: c.asUser },
    })
    .onConflictDoNothing()
    .returning();
  if (!intent) {
    const [row] = await db.select().from(voiceCalls).where(eq(voiceCalls.intentKey, `dispatch:${c.idempotencyKey}`));
    return row ? earlier(row) : failed('the call could not be recorded: nobody was called');
  }
  const placed = await createCall(config, {
    from,
    to: c.to,
    url: stepUrl('answer', { call: intent.id }),
    statusCallback: stepUrl('status', { call: intent.id }),
    // Answering machine detection as the dispatch says: a voicemail waits for the greeting's end; hanging up needs only the verdict.
    machineDetection: c.terms?.onMachine === 'hangup' ? 'Enable' : 'DetectMessageEnd',
    timeoutSec: 30,
  });
  if (placed.ok) {
    // A status callback that came first may have moved the call on: only `dialing` takes the answer's status.
    await db
      .update(voiceCalls)
      .set({ callSid: sql`coalesce(${voiceCalls.callSid}, ${placed.sid})`, status: sql`CASE WHEN ${voiceCalls.status} = 'dialing' THEN 'queued' ELSE ${voiceCalls.status} END` })
      .where(eq(voiceCalls.id, intent.id));
    return { state: 'accepted', providerMessageId: placed.sid };
  }
  if (!placed.definite) {
    await db.update(voiceCalls).set({ status: 'unknown', reason: placed.reason }).where(and(eq(voiceCalls.id, intent.id), eq(voiceCalls.status, 'dialing')));
    logger.warn({ callId: intent.id, reason: placed.reason }, 'voice: Twilio’s answer to a call was lost; the call stays unknown and is not placed again');
    return { state: 'unknown', providerMessageId: null, reason: placed.reason };
  }
  await db.update(voiceCalls).set({ status: 'failed', outcome: 'failed', reason: placed.reason, endedAt: now }).where(eq(voiceCalls.id, intent.id));
  return failed(placed.reason);
}
