import { and, asc, eq, isNotNull, lte, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { phoneLineRequests, users } from '@/db/schema';
import { logger } from '@/server/logger';
import { twilioConfig } from './twilio/config';
import { buyLineNumber } from './twilio/provision';

/*
 * Buying a number for a pending request, and trying again when Twilio refused or could not be
 * reached (STEWARD_TWILIO_PROVISION=1). The first attempt is the request's own (phone-lines.ts);
 * a failure schedules the next (`nextPurchaseAt`), each later one twice as far (5 minutes, then
 * 10, 20... at most 6 hours apart), PURCHASE_ATTEMPTS in all; after the last the request waits
 * for the operator, as before. `lastPurchaseError` keeps Twilio's reason for the operator. The
 * `phone-line-purchases` function (inngest/functions/phone-line-purchases.ts) runs the retries.
 */

/** Purchases tried for one request, the request's own included. */
export const PURCHASE_ATTEMPTS = 8;
const FIRST_RETRY_MS = 5 * 60_000;
const LONGEST_WAIT_MS = 6 * 3_600_000;

/** How long after failed attempt `n` (1 = the request's own) the next one is due; null after the last. */
export function retryDelayMs(n: number): number | null {
  if (n >= PURCHASE_ATTEMPTS) return null;
  return Math.min(FIRST_RETRY_MS * 2 ** (n - 1), LONGEST_WAIT_MS);
}

/**
 * One attempt: buys a number and hands it to `assign` (phone-lines.ts assigns it to the request);
 * a failure is recorded with the next attempt's time. The attempt is claimed first (attempts
 * counted, the next time pushed out in one conditional update), so two executors never buy for
 * the same request at once.
 */
export async function attemptPurchase(
  db: Db,
  requestId: string,
  wanted: { country: string; notes: string; voice: boolean },
  assign: (bought: { sid: string; number: string }) => Promise<void>,
  now = new Date(),
): Promise<'bought' | 'failed' | 'skipped'> {
  const config = twilioConfig();
  if (!config?.provision) return 'skipped';
  const [claimed] = await db
    .update(phoneLineRequests)
    .set({ purchaseAttempts: sql`${phoneLineRequests.purchaseAttempts} + 1`, nextPurchaseAt: null })
    .where(
      and(
        eq(phoneLineRequests.id, requestId),
        eq(phoneLineRequests.status, 'pending'),
        sql`${phoneLineRequests.purchaseAttempts} < ${PURCHASE_ATTEMPTS}`,
        sql`(${phoneLineRequests.purchaseAttempts} = 0 OR ${phoneLineRequests.nextPurchaseAt} <= ${now})`,
      ),
    )
    .returning({ attempts: phoneLineRequests.purchaseAttempts });
  if (!claimed) return 'skipped';
  try {
    await assign(await buyLineNumber(config, requestId, wanted));
    return 'bought';
  } catch (err) {
    const delay = retryDelayMs(claimed.attempts);
    const reason = err instanceof Error ? err.message : String(err);
    await db
      .update(phoneLineRequests)
      .set({ lastPurchaseError: reason.slice(0, 500), nextPurchaseAt: delay === null ? null : new Date(now.getTime() + delay) })
      .where(and(eq(phoneLineRequests.id, requestId), eq(phoneLineRequests.status, 'pending')));
    logger.warn(
      { err, requestId, attempt: claimed.attempts, nextInMs: delay },
      delay === null ? 'phone lines: no number could be bought through Twilio; the last attempt failed, the request waits for the operator' : 'phone lines: no number could be bought through Twilio; trying again later',
    );
    return 'failed';
  }
}

/** The pending requests whose next purchase is due, oldest due first (a page of them per pass). */
export async function duePurchases(db: Db, now = new Date(), limit = 50) {
  return db
    .select({ request: phoneLineRequests, country: users.country })
    .from(phoneLineRequests)
    .innerJoin(users, eq(users.id, phoneLineRequests.userId))
    .where(and(eq(phoneLineRequests.status, 'pending'), isNotNull(phoneLineRequests.nextPurchaseAt), lte(phoneLineRequests.nextPurchaseAt, now)))
    .orderBy(asc(phoneLineRequests.nextPurchaseAt))
    .limit(limit);
}
