
/*
 * What a model call is expected to cost before it is made: the largest charged cost seen for the
 * account and tier. Reservations take this much, so calls that fit under a budget together cannot
 * overshoot it (as long as no call costs more than any before it). Before the first call of a tier
 * is seen, STEWARD_CREDIT_CALL_ESTIMATE (credits) stands in; unset, the cost is unknown and the
 * call runs alone against each budget (reserve.ts), after which its cost is known. The estimate
 * itself is read with the covering budgets (coverage.ts) and raised when a call is settled (reserve.ts).
 */

/** The configured stand-in, or null (unknown). */
export function configuredEstimate(env: Record<string, string | undefined> = process.env): number | null {
  const raw = env.STEWARD_CREDIT_CALL_ESTIMATE?.trim();
  if (!raw) return null;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : null;
}
