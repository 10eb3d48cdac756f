import type { AutonomyExceptionRow, AutonomyMode, OwnCell, PolicyRow, TimeBoxedExpiry } from '@/db/schema';
import { ACTION_TYPES } from './contracts';

/*
 * The autonomy rules as pure functions over rows already read: which mode an action type
 * gets, where it came from, and which tiers bind it. autonomy-resolve.ts reads the rows;
 * every caller (the dispatch resolver, the matrix read, PATCH, GET /tasks) goes through here,
 * so one rule lives in one place.
 */

export type ActionType = (typeof ACTION_TYPES)[number];
export type DispatchSource = 'lock' | 'exception' | 'user' | 'team' | 'organization' | 'account' | 'default';

export type Resolved = {
  mode: AutonomyMode;
  timeBoxedWindowMin: number | null;
  timeBoxedExpiry: TimeBoxedExpiry;
  undoDelaySec: number;
  source: DispatchSource;
};

/**
 * New-user defaults. The spec's table says `third_party_skills` is auto while its reset rule
 * says manual; the safer reading (manual) applies (docs/decisions.md).
 */
export const PLATFORM_DEFAULTS: Record<ActionType, AutonomyMode> = {
  email_as_user: 'manual',
  email_as_assistant: 'auto',
  messaging: 'auto',
  voice_call_as_assistant: 'auto',
  voice_call_as_user: 'manual',
  calendar: 'auto',
  files: 'auto',
  drive: 'auto',
  contacts: 'auto',
  third_party_skills: 'manual',
  website: 'manual',
};
export const DEFAULT_UNDO_DELAY_SEC = 30;
/** Only for a time-boxed value stored without a window (every writer requires one). */
export const FALLBACK_WINDOW_MIN = 60;

const RANK: Record<AutonomyMode, number> = { auto: 0, 'time-boxed': 1, manual: 2 };
const isMode = (m: unknown): m is AutonomyMode => m === 'auto' || m === 'time-boxed' || m === 'manual';

/** A tier's value for one action type. */
export type TierCell = { mode: AutonomyMode; timeBoxedWindowMin: number | null };
export type Floor = TierCell & { source: 'account' | 'organization' | 'team' };

/**
 * Positive when `a` holds an action longer than `b`: a stricter mode, or for two time-boxed
 * values the longer window (a shorter window releases sooner, so it is looser).
 */
export function compareStrictness(a: TierCell, b: TierCell): number {
  const byMode = RANK[a.mode] - RANK[b.mode];
  if (byMode !== 0 || a.mode !== 'time-boxed') return byMode;
  return (a.timeBoxedWindowMin ?? FALLBACK_WINDOW_MIN) - (b.timeBoxedWindowMin ?? FALLBACK_WINDOW_MIN);
}

const strictest = <T extends TierCell>(cells: T[]): T | null =>
  cells.reduce<T | null>((best, c) => (best === null || compareStrictness(c, best) > 0 ? c : best), null);

function tierCell(row: PolicyRow | undefined, a: ActionType): (TierCell & { locked: boolean }) | null {
  const cell = row?.matrix?.[a];
  if (!cell || !isMode(cell.mode)) return null;
  return { mode: cell.mode, timeBoxedWindowMin: cell.mode === 'time-boxed' ? (cell.timeBoxedWindowMin ?? FALLBACK_WINDOW_MIN) : null, locked: cell.locked === true };
}

/** What the tiers above the user say about one action type. */
export type Parents = {
  /** Inherited when the user has no value, lowest tier first: team, organization, account. */
  inherited: { cell: TierCell; source: 'team' | 'organization' | 'account' } | null;
  /** Values the user cannot go below: account and organization locks, and every team cell (a team's cells bind its members). */
  floors: Floor[];
};

/** `rows`: the account's row, the organization's, and one per active team of the user. */
export function parentsFor(rows: PolicyRow[], a: ActionType): Parents {
  const account = tierCell(rows.find((r) => r.level === 'account'), a);
  const organization = tierCell(rows.find((r) => r.level === 'organization'), a);
  const team = strictest(rows.filter((r) => r.level === 'team').flatMap((r) => tierCell(r, a) ?? []));
  const inherited = team
    ? { cell: team, source: 'team' as const }
    : organization
      ? { cell: organization, source: 'organization' as const }
      : account
        ? { cell: account, source: 'account' as const }
        : null;
  const floors: Floor[] = [];
  if (account?.locked) floors.push({ mode: account.mode, timeBoxedWindowMin: account.timeBoxedWindowMin, source: 'account' });
  if (organization?.locked) floors.push({ mode: organization.mode, timeBoxedWindowMin: organization.timeBoxedWindowMin, source: 'organization' });
  if (team) floors.push({ mode: team.mode, timeBoxedWindowMin: team.timeBoxedWindowMin, source: 'team' });
  return { inherited, floors };
}

/** The strictest floor, if any: the value the cell is locked to. */
export const lockedValue = (p: Parents): Floor | null => strictest(p.floors);

/** The user's cell before locks and exceptions: their own mode, else inherited, else the platform default. */
export function baseCell(own: OwnCell | undefined, parents: Parents, a: ActionType): Resolved {
  let mode: AutonomyMode;
  let window: number | null;
  let source: DispatchSource;
  if (own?.mode) {
    mode = own.mode;
    window = own.timeBoxedWindowMin ?? null;
    source = 'user';
  } else if (parents.inherited) {
    mode = parents.inherited.cell.mode;
    window = parents.inherited.cell.timeBoxedWindowMin;
    source = parents.inherited.source;
  } else {
    mode = PLATFORM_DEFAULTS[a];
    window = null;
    source = 'default';
  }
  return {
    mode,
    timeBoxedWindowMin: mode === 'time-boxed' ? (window ?? FALLBACK_WINDOW_MIN) : null,
    timeBoxedExpiry: own?.timeBoxedExpiry ?? 'execute',
    undoDelaySec: own?.undoDelaySec ?? DEFAULT_UNDO_DELAY_SEC,
    source,
  };
}

/** Raises a value to the floors: locks win over the user, exceptions and the task. */
export function applyFloors<T extends Omit<Resolved, 'source'> & { source: string }>(value: T, parents: Parents): T | (Omit<T, 'source'> & { source: 'lock' }) {
  const floor = lockedValue(parents);
  if (!floor || compareStrictness(floor, value) <= 0) return value;
  return { ...value, mode: floor.mode, timeBoxedWindowMin: floor.timeBoxedWindowMin, source: 'lock' };
}

/** Lower-cased address of a recipient, `Name <a@b.org>` included. */
export function normalizeRecipient(r: string): string {
  const angled = /<([^<>]+)>\s*$/.exec(r);
  return (angled ? angled[1] : r).trim().toLowerCase();
}

/**
 * The exception that decides for one recipient: an address match is more specific than a
 * domain match; a domain matches the address's exact domain only, never its subdomains.
 * Among equally specific ones the strictest applies.
 */
export function exceptionFor(recipient: string, exceptions: AutonomyExceptionRow[]): AutonomyExceptionRow | null {
  const address = normalizeRecipient(recipient);
  const at = address.lastIndexOf('@');
  const domain = at >= 0 ? address.slice(at + 1) : null;
  const byAddress = exceptions.filter((e) => e.matchKind === 'address' && e.matchValue === address);
  const candidates = byAddress.length ? byAddress : exceptions.filter((e) => e.matchKind === 'domain' && domain !== null && e.matchValue === domain);
  return strictest(candidates.map((e) => ({ ...e, timeBoxedWindowMin: e.mode === 'time-boxed' ? (e.timeBoxedWindowMin ?? FALLBACK_WINDOW_MIN) : null })));
}

/**
 * The value for one dispatch: each recipient is resolved on its own (its exception, else the
 * base) and the strictest wins, so an exception that relaxes applies only when it matches every
 * recipient while one that tightens applies when it matches any. Undo delays take the longest,
 * and a time-boxed `cancel` expiry wins over `execute`. Locks are applied last.
 */
export function resolveForRecipients(
  base: Resolved,
  parents: Parents,
  recipients: string[],
  exceptions: AutonomyExceptionRow[],
  opts: { exceptionsMayRelax: boolean } = { exceptionsMayRelax: true },
): Resolved {
  const candidates: Resolved[] = recipients.length
    ? recipients.map((r) => {
        const e = exceptionFor(r, exceptions);
        if (!e) return base;
        const fromException: Resolved = {
          mode: e.mode,
          timeBoxedWindowMin: e.mode === 'time-boxed' ? (e.timeBoxedWindowMin ?? FALLBACK_WINDOW_MIN) : null,
          timeBoxedExpiry: e.timeBoxedExpiry ?? base.timeBoxedExpiry,
          undoDelaySec: e.undoDelaySec ?? base.undoDelaySec,
          source: 'exception',
        };
        return !opts.exceptionsMayRelax && compareStrictness(fromException, base) < 0 ? base : fromException;
      })
    : [base];
  const winner = strictest(candidates)!;
  const sameMode = candidates.filter((c) => c.mode === winner.mode);
  const combined: Resolved = {
    ...winner,
    // When a recipient without an exception ends at the same value, the exception decided nothing.
    source: winner.source === 'exception' && candidates.some((c) => c.source !== 'exception' && compareStrictness(c, winner) === 0) ? base.source : winner.source,
    timeBoxedExpiry: winner.mode === 'time-boxed' && sameMode.some((c) => c.timeBoxedExpiry === 'cancel') ? 'cancel' : winner.timeBoxedExpiry,
    undoDelaySec: Math.max(...candidates.map((c) => c.undoDelaySec)),
  };
  return applyFloors(combined, parents);
}
