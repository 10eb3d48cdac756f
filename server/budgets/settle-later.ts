import type { Db } from '@/db/client';
import { logger } from '@/server/logger';
import type { ModelTier } from '@/server/models/tiers';
import { settleCall } from './reserve';

/*
 * A model call's settlement, made once the step that made the call has committed its usage row,
 * off the step's path (issue 40: what the checks add to a model call). The usage row is what was
 * spent; the settlement moves the call's cost from `reserved` to `spent` on the budgets covering
 * its user. Until it commits (a millisecond or so) the budgets still count the call's estimate as
 * reserved, which refuses calls sooner, never later. A settlement that fails, or that a crash
 * stops, is made by the budgets' sweep from the usage row (sweep.ts); settling twice charges once
 * (steward_settle_call settles only what is not settled yet).
 *
 * The run or turn that made the calls waits for them before it closes (loop.ts), so whoever sees
 * it ended sees its budgets settled; so does a process that stops (scripts/start.ts).
 */

/** Settlements in flight in this process, by reservation ref. */
const inFlight = new Map<string, Promise<void>>();

/** Settles the call `ref` at `credits` after the caller's transaction committed; never throws. */
export function settleLater(db: Db, ref: string, tier: ModelTier, credits: number): void {
  // A second settlement of the same call (a retried step) goes after the first.
  const before = inFlight.get(ref) ?? Promise.resolve();
  const settling: Promise<void> = before
    .then(() => db.transaction((tx) => settleCall(tx, ref, tier, credits)))
    .catch((err: unknown) => logger.warn({ err, ref }, 'a model call’s settlement failed; the budgets’ sweep settles it from its usage row'))
    .finally(() => {
      if (inFlight.get(ref) === settling) inFlight.delete(ref);
    });
  inFlight.set(ref, settling);
}

/** Resolves when the settlements of these calls that this process started have committed (or failed). */
export async function callsSettled(refs: Iterable<string>): Promise<void> {
  const pending: Promise<void>[] = [];
  for (const ref of refs) {
    const p = inFlight.get(ref);
    if (p) pending.push(p);
  }
  await Promise.all(pending);
}

/** Resolves when every settlement this process started has committed (or failed): before its database pool closes. */
export async function allCallsSettled(): Promise<void> {
  while (inFlight.size) await Promise.all(inFlight.values());
}
