/*
 * No step runs forever (issue 49). Every step of a durable function has a deadline: its
 * function's default, or the deadline of the longest step-id prefix its function names (a send
 * 60 s, a model call or a tool longer), else DEFAULT_STEP_DEADLINE_MS. Two places hold to it:
 *  - in the app, the SDK middleware (step-deadline-middleware.ts) fails a step still running at its
 *    deadline with StepDeadlineExceeded: the attempt fails and is retried with backoff like any
 *    failed attempt, and the late result, should it come, is dropped;
 *  - in the executor, a call of the app that runs past the longest deadline of its function plus
 *    `slackMs` is abandoned: its lease is no longer renewed, and the run's attempt fails and is
 *    retried the same way. This catches an app that hangs outside any step.
 * The deadlines of Steward's own functions are one table, inngest/step-deadlines.ts.
 */

/** A duration: milliseconds, or text such as "60s", "2m", "1h30m", "500ms". */
export type Duration = number | string;

/** One function's deadlines: `default` for its steps, `steps` by step-id prefix (the longest prefix that matches wins). */
export type FunctionDeadlines = { default?: Duration; steps?: Record<string, Duration> };

/** Functions' deadlines by function id as written in the code (`cart-execute`), without the app's prefix. */
export type StepDeadlineTable = Record<string, FunctionDeadlines>;

/** A step of a function the table does not name, or names without a default. */
export const DEFAULT_STEP_DEADLINE_MS = 5 * 60_000;

/**
 * What a call may take beyond its function's longest step deadline before the executor gives up
 * on it: the SDK runs further steps in one call for up to 10 s (checkpointing), and answers once
 * the middleware ended a step at its deadline.
 */
export const DEFAULT_CALL_SLACK_MS = 40_000;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function durationMs(d: Duration): number {
  if (typeof d === 'number') return d;
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(d)) throw new Error(`not a duration: ${d} (say 60s, 2m or 1h30m)`);
  let ms = 0;
  for (const m of d.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) ms += Number(m[1]) * UNITS[m[2]!]!;
  return ms;
}

/** The function's own entry: `fnId` as registered (`steward-cart-execute`) or as written (`cart-execute`). */
function entryOf(table: StepDeadlineTable, fnId: string, appName?: string): FunctionDeadlines | undefined {
  if (table[fnId]) return table[fnId];
  if (appName && fnId.startsWith(`${appName}-`)) return table[fnId.slice(appName.length + 1)];
  return undefined;
}

/** The deadline of step `stepId` (its id as written: `send-0`) of function `fnId`. */
export function stepDeadlineMs(table: StepDeadlineTable, fnId: string, stepId: string, appName?: string): number {
  const entry = entryOf(table, fnId, appName);
  let best: string | null = null;
  for (const prefix of Object.keys(entry?.steps ?? {})) if (stepId.startsWith(prefix) && (best === null || prefix.length > best.length)) best = prefix;
  if (best !== null) return durationMs(entry!.steps![best]!);
  return entry?.default !== undefined ? durationMs(entry.default) : DEFAULT_STEP_DEADLINE_MS;
}

/** The longest deadline any step of the function has: what one call of it may need. */
export function longestStepDeadlineMs(table: StepDeadlineTable, fnId: string, appName?: string): number {
  const entry = entryOf(table, fnId, appName);
  const all = [entry?.default !== undefined ? durationMs(entry.default) : DEFAULT_STEP_DEADLINE_MS, ...Object.values(entry?.steps ?? {}).map(durationMs)];
  return Math.max(...all);
}

/** Checks every duration of a table once (at start-up), so a typo fails loudly rather than at a step. */
export function checkDeadlineTable(table: StepDeadlineTable): StepDeadlineTable {
  for (const [fn, entry] of Object.entries(table)) {
    for (const d of [entry.default, ...Object.values(entry.steps ?? {})]) {
      if (d === undefined) continue;
      const ms = durationMs(d);
      if (!(ms > 0)) throw new Error(`step deadline of ${fn}: ${d} is not a positive duration`);
    }
  }
  return table;
}

/** The error a step (or a call) past its deadline fails its attempt with. */
export class StepDeadlineExceeded extends Error {
  constructor(what: string, ms: number) {
    super(`${what} ran past its deadline of ${ms < 10_000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}`);
    this.name = 'StepDeadlineExceeded';
  }
}
