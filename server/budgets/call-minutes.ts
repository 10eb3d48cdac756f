import { sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { creditBudgetUsage, creditReservations, type VoiceCallRow } from '@/db/schema';
import { logger } from '@/server/logger';
import { alertThresholds } from './alerts';
import { roundCredits, targetsFor } from './coverage';
import { lockUsageRows, usageRow } from './usage-rows';

/*
 * Phone time in budgets (issue 48). The deployment pays its carrier per minute, so a call that
 * ended with a duration is charged to the budgets covering its owner (the assistant's user):
 * ceil(seconds / 60) × STEWARD_VOICE_MINUTE_PRICE credits, as the carrier bills it. Unset or 0:
 * phone time is not billed. Model tokens of realtime calls are charged separately, response by
 * response (chats/live-voice-usage.ts).
 *
 * Once per call: the charge is recorded as a settled reservation with ref `minutes:<callId>`
 * (credit_reservations.ref is unique), written before the usage rows move. A redelivered final
 * status or the sweep closing the same call finds it and charges nothing. It is not made through
 * steward_settle_call, which only settles a held reservation and raises the tier's model-call
 * estimate: a long call would make every later model call reserve as much as the call cost.
 *
 * Minutes never refuse or cut a call: a spent budget already stops the model (voice-bridge.ts).
 * Alerts fire as for a model call (alertThresholds), in the caller's transaction.
 */

/** Credits per started call minute; null when phone time is not billed (unset, 0, or malformed: logged). */
export function callMinutePrice(env: Record<string, string | undefined> = process.env): number | null {
  const raw = env.STEWARD_VOICE_MINUTE_PRICE?.trim();
  if (!raw) return null;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) {
    // Never fail the status webhook for a setting: the call is closed, its minutes not billed.
    logger.warn({ value: raw }, 'STEWARD_VOICE_MINUTE_PRICE is not a non-negative number; call minutes are not billed');
    return null;
  }
  return n > 0 ? n : null;
}

export const minutesRef = (callId: string) => `minutes:${callId}`;

type EndedCall = Pick<VoiceCallRow, 'id' | 'accountId' | 'userId' | 'durationSec'>;

/**
 * Charges an ended call's minutes to the budgets covering its owner, in the transaction that
 * closes the call (so a failed charge leaves the call open for the sweep). Answers the credits
 * charged (0: not billed, no owner, no duration, no covering budget, or already charged).
 */
export async function chargeCallMinutes(tx: Tx, call: EndedCall, now = new Date()): Promise<number> {
  const price = callMinutePrice();
  // A shared assistant's call has no owner to charge.
  if (price === null || !call.userId || !call.durationSec || call.durationSec <= 0) return 0;
  const credits = roundCredits(Math.ceil(call.durationSec / 60) * price);
  const targets = await targetsFor(tx, call.accountId, call.userId, now);
  if (!targets.length) return 0;
  const [first] = await tx
    .insert(creditReservations)
    .values({
      accountId: call.accountId,
      userId: call.userId,
      ref: minutesRef(call.id),
      amount: 0,
      targets: targets.map((t) => ({ budgetId: t.budgetId, periodStart: t.periodStart.toISOString(), memberUserId: t.memberUserId })),
      status: 'settled',
      settledCredits: credits,
      settledAt: now,
    })
    .onConflictDoNothing({ target: creditReservations.ref })
    .returning({ id: creditReservations.id });
  if (!first) return 0;
  const rows = await lockUsageRows(tx, targets);
  for (const row of rows.values()) {
    const [charged] = await tx
      .update(creditBudgetUsage)
      .set({ spent: sql`${creditBudgetUsage.spent} + ${credits}`, updatedAt: now })
      .where(usageRow(row))
      .returning();
    if (charged) await alertThresholds(tx, charged, now);
  }
  return credits;
}
