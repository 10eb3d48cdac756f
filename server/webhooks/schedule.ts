import { TOTAL_MS } from '@/server/http/outbound-timeouts';

/*
 * When a failed delivery is tried again: exponential backoff from 30 seconds, doubling up to 2
 * hours between attempts, for 24 hours after the event; then the delivery has failed and its
 * endpoint is disabled (persistent failure), so a dead endpoint stops costing attempts.
 * STEWARD_WEBHOOK_BACKOFF_MS (first delay) and STEWARD_WEBHOOK_RETRY_WINDOW_MS shorten both
 * for tests and staging.
 */

const num = (v: string | undefined, fallback: number) => (v && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : fallback);

export const retryWindowMs = () => num(process.env.STEWARD_WEBHOOK_RETRY_WINDOW_MS, 24 * 60 * 60 * 1000);
const firstDelayMs = () => num(process.env.STEWARD_WEBHOOK_BACKOFF_MS, 30_000);
const MAX_DELAY_FACTOR = 240; // 30 s × 240 = 2 hours

/** The wait after attempt `n` (1-based) failed, or null when the next attempt would fall outside the window. */
export function nextDelayMs(attempt: number, createdAt: Date, now: Date): number | null {
  const delay = firstDelayMs() * Math.min(2 ** (attempt - 1), MAX_DELAY_FACTOR);
  return now.getTime() + delay - createdAt.getTime() > retryWindowMs() ? null : delay;
}

/** How long one attempt may take before it counts as failed. */
export const attemptTimeoutMs = () => num(process.env.STEWARD_WEBHOOK_TIMEOUT_MS, TOTAL_MS.webhook);
