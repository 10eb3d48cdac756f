import { and, desc, eq, sql } from 'drizzle-orm';
import { atOnce } from '@/db/at-once';
import type { Tx } from '@/db/client';
import { autonomyExceptions, autonomySettings, type AutonomyExceptionRow, type AutonomyMode, type OwnCell, type PolicyRow } from '@/db/schema';
import { baseCell, compareStrictness, parentsFor, resolveForRecipients, type ActionType, type Parents, type Resolved } from './autonomy-rules';
import { policyRowsForUser } from './resolve';

import { ACTION_TYPES } from './contracts';

export { ACTION_TYPES };
export type { ActionType } from './autonomy-rules';

export type AutonomyUser = { id: string; accountId: string; organizationId: string | null };

/** What a dispatch gets: its mode with the window, expiry and undo delay, and the tier that decided. */
export type DispatchMode = {
  mode: 'auto' | 'time-boxed' | 'manual';
  timeBoxedWindowMin: number | null;
  timeBoxedExpiry: 'execute' | 'cancel';
  undoDelaySec: number;
  source: 'lock' | 'exception' | 'user' | 'team' | 'organization' | 'account' | 'default';
};

/** Everything autonomy reads for one user: their own cells and the policy rows above them. */
export type AutonomyState = { own: Record<string, OwnCell>; ownUpdatedAt: Date | null; rows: PolicyRow[] };

export async function loadAutonomy(db: Tx, user: AutonomyUser, opts: { forUpdate?: boolean } = {}): Promise<AutonomyState> {
  const q = db.select().from(autonomySettings).where(eq(autonomySettings.userId, user.id));
  const [[own], rows] = await atOnce(db, [async () => (opts.forUpdate ? q.for('update') : q), () => policyRowsForUser(db, user)]);
  return { own: own?.matrix ?? {}, ownUpdatedAt: own?.updatedAt ?? null, rows };
}

/** The user's exceptions, newest first; with an action type, only those that apply to it. */
export function userExceptions(db: Tx, userId: string, actionType?: string): Promise<AutonomyExceptionRow[]> {
  return db
    .select()
    .from(autonomyExceptions)
    .where(and(eq(autonomyExceptions.userId, userId), actionType ? sql`${autonomyExceptions.appliesTo} @> ${JSON.stringify([actionType])}::jsonb` : undefined))
    .orderBy(desc(autonomyExceptions.createdAt), desc(autonomyExceptions.id));
}

/** The cell in force for one action type without recipients: the user's value (or inherited, or the default), raised to the locks. */
export function cellInForce(state: AutonomyState, a: ActionType): { value: Resolved; parents: Parents } {
  const parents = parentsFor(state.rows, a);
  return { value: resolveForRecipients(baseCell(state.own[a], parents, a), parents, [], []), parents };
}

/**
 * The mode one staged dispatch gets, in the order of the runtime spec: recipient exceptions,
 * then the user's cell, then team, organization, account, platform default; locks win. With
 * several recipients each is resolved and the strictest applies (autonomy-rules.ts).
 */
export async function resolveDispatchMode(db: Tx, user: AutonomyUser, actionType: ActionType, recipients: string[]): Promise<DispatchMode> {
  const [state, exceptions] = await atOnce(db, [() => loadAutonomy(db, user), async () => (recipients.length ? userExceptions(db, user.id, actionType) : [])]);
  const parents = parentsFor(state.rows, actionType);
  return resolveForRecipients(baseCell(state.own[actionType], parents, actionType), parents, recipients, exceptions);
}

/**
 * The same for a task that carries its own `approvalMode`: the task's mode takes the place of
 * the user's cell, an exception may tighten it but never relax it (the task's mode is a choice
 * made for this task), and locks still win. Without a task mode this is resolveDispatchMode.
 */
export async function resolveTaskDispatchMode(
  db: Tx,
  user: AutonomyUser,
  actionType: ActionType,
  recipients: string[],
  taskMode: AutonomyMode | null,
): Promise<Omit<DispatchMode, 'source'> & { source: DispatchMode['source'] | 'task' }> {
  if (!taskMode) return resolveDispatchMode(db, user, actionType, recipients);
  const [state, exceptions] = await atOnce(db, [() => loadAutonomy(db, user), async () => (recipients.length ? userExceptions(db, user.id, actionType) : [])]);
  const parents = parentsFor(state.rows, actionType);
  const own = state.own[actionType];
  const userBase = baseCell(own, parents, actionType);
  const window = taskMode === 'time-boxed' ? (own?.timeBoxedWindowMin ?? userBase.timeBoxedWindowMin ?? null) : null;
  const taskBase = baseCell({ ...own, mode: taskMode, timeBoxedWindowMin: window }, parents, actionType);
  const out = resolveForRecipients(taskBase, parents, recipients, exceptions, { exceptionsMayRelax: false });
  // taskBase is the only value here with source 'user', so 'user' in the result means the task decided.
  return { ...out, source: out.source === 'user' ? 'task' : out.source };
}

/**
 * What binds a user's actions whatever they choose, per action type and tier (account and
 * organization locks, team cells), and the mode a task-wide `approvalMode` leaves in force: the
 * task's mode where no lock is stricter. When every action type is locked stricter, that is the
 * loosest of those locks, so the mode shown is never looser than what any action will get.
 */
export async function taskApprovalBinding(db: Tx, user: AutonomyUser, taskMode: AutonomyMode | null) {
  const state = await loadAutonomy(db, user);
  const locks: { actionType: ActionType; mode: AutonomyMode; source: 'account' | 'organization' | 'team' }[] = [];
  let inForce: Resolved | null = null;
  for (const a of ACTION_TYPES) {
    const parents = parentsFor(state.rows, a);
    for (const f of parents.floors) locks.push({ actionType: a, mode: f.mode, source: f.source });
    if (!taskMode) continue;
    const own = state.own[a];
    const value = resolveForRecipients(baseCell({ ...own, mode: taskMode }, parents, a), parents, [], []);
    if (inForce === null || compareStrictness(value, inForce) < 0) inForce = value;
  }
  const order = { account: 0, organization: 1, team: 2 } as const;
  locks.sort((x, y) => order[x.source] - order[y.source]);
  return { modeInForce: inForce?.mode ?? null, locks };
}
