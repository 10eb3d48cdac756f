import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { workspaceControls, type ControlOperator } from '@/db/schema';
import { AppError } from '@/server/http/errors';

/** Spec document 2, "Session control". */
export type SessionControl = { generation: number; handoffId: string | null; operator: ControlOperator };

const AGENT: SessionControl = { generation: 0, handoffId: null, operator: 'agent' };

export const controlChanged = (now: SessionControl) =>
  new AppError(409, 'control_changed', 'Control of the computer changed meanwhile: refresh the handoff list and retry', {
    control: now,
  });

/** Who holds the user's browser now. A user that never had a handoff: the agent, generation 0. */
export async function readControl(db: Tx, accountId: string, userId: string): Promise<SessionControl> {
  const [row] = await db
    .select()
    .from(workspaceControls)
    .where(and(eq(workspaceControls.accountId, accountId), eq(workspaceControls.userId, userId)));
  if (!row) return AGENT;
  // A deleted handoff (its task deleted) leaves no holder: the browser is the assistant's again.
  const operator = row.operator === 'user' && row.handoffId === null ? 'agent' : row.operator;
  return { generation: row.generation, handoffId: row.handoffId, operator };
}

/**
 * Hands control to `operator` (for `handoffId`), bumping the generation. With `expected`, the
 * change happens only if the generation is still that one, else 409: the caller acted on a
 * state that is gone. The row is locked for the rest of the caller's transaction, so control
 * changes of one user are serialized.
 */
export async function setControl(
  tx: Tx,
  accountId: string,
  userId: string,
  next: { operator: ControlOperator; handoffId: string | null },
  expected?: number,
): Promise<SessionControl> {
  const current = await lockControl(tx, accountId, userId);
  if (expected !== undefined && expected !== current.generation) throw controlChanged(current);
  const [row] = await tx
    .update(workspaceControls)
    .set({ generation: sql`${workspaceControls.generation} + 1`, operator: next.operator, handoffId: next.handoffId })
    .where(and(eq(workspaceControls.accountId, accountId), eq(workspaceControls.userId, userId)))
    .returning();
  return { generation: row!.generation, handoffId: row!.handoffId, operator: row!.operator };
}

/** Locks (creating it if needed) the user's control row and returns it. */
export async function lockControl(tx: Tx, accountId: string, userId: string): Promise<SessionControl> {
  await tx.insert(workspaceControls).values({ accountId, userId }).onConflictDoNothing();
  const [row] = await tx
    .select()
    .from(workspaceControls)
    .where(and(eq(workspaceControls.accountId, accountId), eq(workspaceControls.userId, userId)))
    .for('update');
  return { generation: row!.generation, handoffId: row!.handoffId, operator: row!.operator };
}

/** 409 when the caller passed a generation that is no longer current. */
export async function assertGeneration(tx: Tx, accountId: string, userId: string, expected: number | undefined) {
  if (expected === undefined) return;
  const now = await readControl(tx, accountId, userId);
  if (now.generation !== expected) throw controlChanged(now);
}

/**
 * The browser tools call this before acting: while the person holds the browser (a session
 * link was issued for an open handoff) the assistant must not touch it.
 */
export async function assertAgentHasControl(db: Tx, accountId: string, userId: string): Promise<void> {
  const now = await readControl(db, accountId, userId);
  if (now.operator === 'user') {
    throw new AppError(409, 'user_has_control', 'The user holds the browser for a handoff; wait until they hand it back', {
      control: now,
    });
  }
}
