import { createHash } from 'node:crypto';
import { Cron } from 'croner';

/*
 * When a cron trigger fires. A cron expression names whole minutes, so every minutely sweep of an
 * app falls due at second 0 together, and the burst of runs they start holds every request the
 * process serves at that moment (issue 40: Steward's fifteen minutely sweeps set the SMS
 * webhook's p99, ~500 ms for one second each minute). With a spread, each (function, cron) fires
 * a fixed offset after its scheduled time: a share of `windowMs` taken from a hash of the pair,
 * the same on every process and after every restart (a due time still fires once, whoever claims
 * it) and different for different functions, so the minute's sweeps are spread over its first
 * seconds. A function whose runs must start on the minute (a reminder, a user's scheduled
 * workflow) is named in `exact` and keeps offset 0. The window is capped well under the shortest
 * gap a five-field cron can have (a minute), so a fire never passes the next scheduled time.
 */
export type CronSpread = {
  windowMs: number;
  /** Functions that fire on their scheduled time, as written (`workflow-scheduler`) or as registered (`steward-workflow-scheduler`). */
  exact: readonly string[];
};

const MAX_WINDOW_MS = 30_000;

const isExact = (spread: CronSpread, functionId: string) => spread.exact.some((id) => functionId === id || functionId.endsWith(`-${id}`));

/** How long after each scheduled time the pair fires: 0 without a spread or for an exact function, else in [0, windowMs). */
export function cronOffsetMs(spread: CronSpread | undefined, functionId: string, cron: string): number {
  if (!spread || isExact(spread, functionId)) return 0;
  const window = Math.max(0, Math.min(spread.windowMs, MAX_WINDOW_MS));
  const h = createHash('sha256').update(`${functionId}\n${cron}`).digest().readUInt32BE(0);
  return Math.floor((h / 2 ** 32) * window);
}

/** The pair's first fire after `now` (null: the expression has no time to come). */
export function nextCronFire(spread: CronSpread | undefined, functionId: string, cron: string, now: Date): Date | null {
  const offset = cronOffsetMs(spread, functionId, cron);
  const scheduled = new Cron(cron, { timezone: 'UTC' }).nextRun(new Date(now.getTime() - offset));
  return scheduled ? new Date(scheduled.getTime() + offset) : null;
}
