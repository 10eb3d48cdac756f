/*
 * How long handoffs stay open. The spec only says unanswered handoffs expire at `expiresAt`:
 * a task's request waits a day for the user (its follow-up alarm comes just after, so the task
 * never waits past it), a browser session the user opened themselves lasts an hour.
 */
const minutes = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};

export const taskHandoffTtlMs = () => minutes('STEWARD_HANDOFF_TTL_MINUTES', 24 * 60) * 60_000;
export const launchedHandoffTtlMs = () => minutes('STEWARD_HANDOFF_SESSION_TTL_MINUTES', 60) * 60_000;
/** After a decline, request_handoff refuses for the same task for this long. */
export const DECLINE_COOLDOWN_MS = 60 * 60_000;
