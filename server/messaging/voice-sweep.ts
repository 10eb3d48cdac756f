import { and, asc, eq, isNotNull, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { voiceCalls } from '@/db/schema';
import { fetchCall } from '@/server/channels/twilio/calls';
import { twilioConfig } from '@/server/channels/twilio/config';
import { CALL_STATUSES, VoiceParams } from '@/server/channels/twilio/voice-payloads';
import { logger } from '@/server/logger';
import { statusStep } from './voice-outbound';

/*
 * No call goes unaccounted for (issue 48): a call Twilio knows (a CallSid) whose final status
 * callback never came is asked about, through Twilio's Call resource, once it is older than
 * STEWARD_VOICE_SWEEP_AFTER_MS (default 10 minutes) and again at most that often. A final status
 * closes it exactly as the callback would have (voice-outbound.ts statusStep: outcome, duration,
 * and for a placed call the report that wakes its task, once under the call's row lock). A call
 * Twilio has no record of is closed `failed`. A call still going on is left, and asked about
 * later. Calls that never got a CallSid (an outbound call whose Calls API answer was lost) stay
 * `unknown`: there is nothing to ask about, and they are never dialled again.
 */

export function sweepAfterMs(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.STEWARD_VOICE_SWEEP_AFTER_MS);
  return Number.isInteger(n) && n >= 1_000 ? n : 10 * 60_000;
}

const BATCH = 100;
const FINAL = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

export async function sweepCalls(db: Db, now = new Date()): Promise<{ asked: number; closed: number }> {
  const config = twilioConfig();
  if (!config) return { asked: 0, closed: 0 };
  const before = new Date(now.getTime() - sweepAfterMs());
  const open = await db
    .select()
    .from(voiceCalls)
    .where(and(isNull(voiceCalls.endedAt), isNotNull(voiceCalls.callSid), lt(voiceCalls.createdAt, before), or(isNull(voiceCalls.statusCheckedAt), lt(voiceCalls.statusCheckedAt, before))))
    .orderBy(asc(voiceCalls.createdAt))
    .limit(BATCH);
  let closed = 0;
  for (const call of open) {
    const got = await fetchCall(config, call.callSid!);
    await db.update(voiceCalls).set({ statusCheckedAt: now }).where(eq(voiceCalls.id, call.id));
    let status: string | null = null;
    const extra: Record<string, string> = {};
    if (got.ok && FINAL.has(got.status) && (CALL_STATUSES as readonly string[]).includes(got.status)) {
      status = got.status;
      if (got.durationSec !== null) extra.CallDuration = String(got.durationSec);
      if (got.answeredBy) extra.AnsweredBy = got.answeredBy;
    } else if (!got.ok && got.gone) {
      status = 'failed';
    } else {
      if (!got.ok) logger.warn({ callId: call.id, reason: got.reason }, 'voice sweep: Twilio could not tell a call’s status; asked again later');
      continue;
    }
    const p = VoiceParams.parse({ CallSid: call.callSid, AccountSid: config.accountSid, From: call.fromNumber, To: call.toNumber, CallStatus: status, ...extra });
    await statusStep(db, p, { call: call.id }, now);
    if (!got.ok) await db.update(voiceCalls).set({ reason: 'Twilio has no record of this call' }).where(eq(voiceCalls.id, call.id));
    closed++;
    logger.info({ callId: call.id, status }, 'voice sweep: a call whose final status never came was closed');
  }
  return { asked: open.length, closed };
}
