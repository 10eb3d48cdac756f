import { and, count, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { autonomyExceptions, autonomySettings, type AutonomyExceptionRow, type OwnCell } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest, forbidden, invalidFields, notFound, type FieldProblem } from '@/server/http/errors';
import { visibleUser } from '@/server/user-record/access';
import type { ExceptionBody, MatrixPatchBody, RecipientException, SupervisionCell } from './autonomy-contracts';
import { cellInForce, loadAutonomy, userExceptions, type AutonomyState, type AutonomyUser } from './autonomy-resolve';
import { compareStrictness, FALLBACK_WINDOW_MIN, lockedValue, parentsFor, type ActionType, type TierCell } from './autonomy-rules';
import { ACTION_TYPES } from './contracts';

/** Enough for every partner domain a person deals with, small enough to scan on every dispatch. */
export const MAX_EXCEPTIONS = 200;

/**
 * The read: each cell shows the value in force (the user's own, else inherited, else the
 * platform default, raised to any lock), never null; `source` says which of those it is.
 */
function matrixView(state: AutonomyState) {
  const matrix = {} as Record<ActionType, z.input<typeof SupervisionCell>>;
  const parentLockedCells: string[] = [];
  const orgLockedCells: string[] = [];
  const teamLockedCells: string[] = [];
  const lockedValues: Record<string, TierCell> = {};
  for (const a of ACTION_TYPES) {
    const { value, parents } = cellInForce(state, a);
    const own = state.own[a];
    matrix[a] = {
      mode: value.mode,
      // A window the user saved stays visible while the mode is not time-boxed, so a PATCH of the mode alone keeps it.
      timeBoxedWindowMin: value.mode === 'time-boxed' ? value.timeBoxedWindowMin : (own?.timeBoxedWindowMin ?? null),
      timeBoxedExpiry: value.timeBoxedExpiry,
      undoDelaySec: value.undoDelaySec,
      // Without recipients no exception takes part.
      source: value.source === 'exception' ? 'user' : value.source,
    };
    for (const f of parents.floors) (f.source === 'account' ? parentLockedCells : f.source === 'organization' ? orgLockedCells : teamLockedCells).push(a);
    const lock = lockedValue(parents);
    if (lock) lockedValues[a] = { mode: lock.mode, timeBoxedWindowMin: lock.timeBoxedWindowMin };
  }
  return {
    ok: true as const,
    supervisionMatrix: { matrix, matrixUpdatedAt: state.ownUpdatedAt?.toISOString() ?? null, parentLockedCells, orgLockedCells, teamLockedCells, lockedValues },
  };
}

const describeLock = (a: string, lock: TierCell & { source: string }) =>
  `${a}: locked by the ${lock.source} at ${lock.mode}${lock.mode === 'time-boxed' ? ` (${lock.timeBoxedWindowMin} min)` : ''}`;

export async function getSupervisionMatrix(db: Db, actor: Actor, userId: string) {
  const user = await visibleUser(db, actor, userId);
  return matrixView(await loadAutonomy(db, user));
}

/**
 * Merges cells into the user's own matrix. All or nothing: any field problem is a 400 naming
 * each field, and a cell that would end looser than a lock (team, organization or account) is
 * a 403 naming each such cell; either way nothing changes.
 */
export async function patchSupervisionMatrix(db: Db, actor: Actor, userId: string, input: z.infer<typeof MatrixPatchBody>) {
  const user = await visibleUser(db, actor, userId);
  return db.transaction(async (tx) => {
    await tx.insert(autonomySettings).values({ userId: user.id, accountId: user.accountId }).onConflictDoNothing();
    const state = await loadAutonomy(tx, user, { forUpdate: true });
    const next: Record<string, OwnCell> = { ...state.own };
    const problems: FieldProblem[] = [];
    const refused: { actionType: ActionType; message: string }[] = [];
    for (const a of ACTION_TYPES) {
      const patch = input.matrix[a];
      if (patch === undefined) continue;
      const merged: OwnCell = patch === null ? {} : { ...next[a], ...patch };
      for (const k of Object.keys(merged) as (keyof OwnCell)[]) if (merged[k] === null || merged[k] === undefined) delete merged[k];
      const parents = parentsFor(state.rows, a);
      // Time-boxed without a window keeps the window in force (the user's own, else inherited), else the default.
      if (merged.mode === 'time-boxed' && !merged.timeBoxedWindowMin) merged.timeBoxedWindowMin = parents.inherited?.cell.timeBoxedWindowMin ?? FALLBACK_WINDOW_MIN;
      const touchesMode = patch !== null && (patch.mode !== undefined || patch.timeBoxedWindowMin !== undefined);
      const lock = lockedValue(parents);
      if (touchesMode && lock && merged.mode) {
        const value = { mode: merged.mode, timeBoxedWindowMin: merged.mode === 'time-boxed' ? (merged.timeBoxedWindowMin ?? FALLBACK_WINDOW_MIN) : null };
        if (compareStrictness(value, lock) < 0) refused.push({ actionType: a, message: describeLock(`matrix.${a}`, lock) });
      }
      if (Object.keys(merged).length) next[a] = merged;
      else delete next[a];
    }
    if (problems.length) throw invalidFields(problems);
    if (refused.length) {
      throw forbidden(`would loosen a locked cell: ${refused.map((r) => r.message).join('; ')}`, 'forbidden', { lockedCells: refused.map((r) => r.actionType) });
    }
    await tx.update(autonomySettings).set({ matrix: next, updatedAt: sql`now()` }).where(eq(autonomySettings.userId, user.id));
    return matrixView(await loadAutonomy(tx, user));
  });
}

/** Clears the user's own cells and removes every recipient exception; each cell then follows the tiers above, else the platform default. */
export async function resetSupervisionMatrix(db: Db, actor: Actor, userId: string) {
  const user = await visibleUser(db, actor, userId);
  return db.transaction(async (tx) => {
    await tx
      .insert(autonomySettings)
      .values({ userId: user.id, accountId: user.accountId, matrix: {} })
      .onConflictDoUpdate({ target: autonomySettings.userId, set: { matrix: {}, updatedAt: sql`now()` } });
    await tx.delete(autonomyExceptions).where(eq(autonomyExceptions.userId, user.id));
    return matrixView(await loadAutonomy(tx, user));
  });
}

function toPublicException(e: AutonomyExceptionRow): z.input<typeof RecipientException> {
  return {
    id: e.id,
    label: e.label,
    match: { kind: e.matchKind, value: e.matchValue },
    mode: e.mode,
    timeBoxedWindowMin: e.timeBoxedWindowMin,
    timeBoxedExpiry: e.timeBoxedExpiry,
    undoDelaySec: e.undoDelaySec,
    appliesTo: e.appliesTo,
    createdAt: e.createdAt.toISOString(),
  };
}

/** The user's own exceptions only: another user's (or an unknown id) is 404. */
async function ownException(tx: Tx, user: AutonomyUser, exceptionId: string) {
  const [row] = await tx
    .select()
    .from(autonomyExceptions)
    .where(and(eq(autonomyExceptions.id, exceptionId), eq(autonomyExceptions.userId, user.id), eq(autonomyExceptions.accountId, user.accountId)));
  if (!row) throw notFound('Recipient exception');
  return row;
}

/**
 * A recipient exception. One that would relax an action type below a lock is refused (403
 * naming each), as a PATCH of the cell would be; locks set later still win at dispatch time.
 */
export async function createRecipientException(db: Db, actor: Actor, userId: string, input: z.infer<typeof ExceptionBody>) {
  const user = await visibleUser(db, actor, userId);
  return db.transaction(async (tx) => {
    // Serialises creations for one user, so the cap holds under concurrent calls.
    await tx.insert(autonomySettings).values({ userId: user.id, accountId: user.accountId }).onConflictDoNothing();
    const state = await loadAutonomy(tx, user, { forUpdate: true });
    const [{ n }] = await tx.select({ n: count() }).from(autonomyExceptions).where(eq(autonomyExceptions.userId, user.id));
    if (n >= MAX_EXCEPTIONS) throw badRequest(`recipientExceptions: at most ${MAX_EXCEPTIONS} per user; delete one first`);
    // A time-boxed exception without a window takes the default one, as a matrix cell does.
    const value = { mode: input.mode, timeBoxedWindowMin: input.mode === 'time-boxed' ? (input.timeBoxedWindowMin ?? FALLBACK_WINDOW_MIN) : null };
    const refused = input.appliesTo.flatMap((a) => {
      const lock = lockedValue(parentsFor(state.rows, a));
      return lock && compareStrictness(value, lock) < 0 ? [{ actionType: a, message: describeLock(`appliesTo.${a}`, lock) }] : [];
    });
    if (refused.length) {
      throw forbidden(`would loosen a locked cell: ${refused.map((r) => r.message).join('; ')}`, 'forbidden', { lockedCells: refused.map((r) => r.actionType) });
    }
    const [row] = await tx
      .insert(autonomyExceptions)
      .values({
        accountId: user.accountId,
        userId: user.id,
        label: input.label ?? input.match.value,
        matchKind: input.match.kind,
        matchValue: input.match.value,
        mode: input.mode,
        timeBoxedWindowMin: value.timeBoxedWindowMin,
        timeBoxedExpiry: input.timeBoxedExpiry ?? null,
        undoDelaySec: input.undoDelaySec ?? null,
        appliesTo: input.appliesTo,
      })
      .returning();
    return { ok: true as const, recipientException: toPublicException(row) };
  });
}

export async function listRecipientExceptions(db: Db, actor: Actor, userId: string) {
  const user = await visibleUser(db, actor, userId);
  return { ok: true as const, recipientExceptions: (await userExceptions(db, user.id)).map(toPublicException) };
}

export async function deleteRecipientException(db: Db, actor: Actor, userId: string, exceptionId: string) {
  const user = await visibleUser(db, actor, userId);
  const row = await ownException(db, user, exceptionId);
  await db.delete(autonomyExceptions).where(eq(autonomyExceptions.id, row.id));
  return { ok: true as const, recipientException: { id: row.id, deleted: true as const } };
}
