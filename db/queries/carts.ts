import { and, desc, inArray, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { carts } from '@/db/schema';

/*
 * What a task shows of its carts (the task's `pendingCart`). It lives under db/ because the
 * tasks area reads it and the approvals area, which owns carts, builds on tasks: tasks may
 * not import approvals.
 */

/** A task's cart waiting for the person, as GET /tasks shows it. */
export type PendingCartSummary = {
  id: string;
  status: 'pending_approval' | 'time_boxed';
  contentHash: string;
  dispatchCount: number;
  timeBoxedExpiresAt: string | null;
};

/** For each task, its newest cart pending approval or time-boxed (tasks without one are absent). */
export async function pendingCartSummaries(tx: Tx, taskIds: readonly string[]): Promise<Map<string, PendingCartSummary>> {
  const out = new Map<string, PendingCartSummary>();
  if (!taskIds.length) return out;
  const rows = await tx
    .select({
      taskId: carts.taskId,
      id: carts.id,
      status: carts.status,
      contentHash: carts.contentHash,
      timeBoxedExpiresAt: carts.timeBoxedExpiresAt,
      // Spelled out: inside a subquery drizzle would leave the outer column unqualified.
      dispatchCount: sql<number>`(SELECT count(*)::int FROM cart_dispatches d WHERE d.cart_id = "carts"."id" AND d.removed_at IS NULL)`,
    })
    .from(carts)
    .where(and(inArray(carts.taskId, [...taskIds]), inArray(carts.status, ['pending_approval', 'time_boxed'])))
    .orderBy(desc(carts.createdAt), desc(carts.id));
  for (const r of rows) {
    if (out.has(r.taskId) || (r.status !== 'pending_approval' && r.status !== 'time_boxed')) continue;
    out.set(r.taskId, {
      id: r.id,
      status: r.status,
      contentHash: r.contentHash,
      dispatchCount: Number(r.dispatchCount),
      timeBoxedExpiresAt: r.timeBoxedExpiresAt ? r.timeBoxedExpiresAt.toISOString() : null,
    });
  }
  return out;
}

/** One task's pending cart, or null. */
export async function pendingCartSummary(tx: Tx, taskId: string): Promise<PendingCartSummary | null> {
  return (await pendingCartSummaries(tx, [taskId])).get(taskId) ?? null;
}

/**
 * The task's pending cart as one column of a task query (a correlated subquery), so a page of
 * tasks and their carts is one round trip. `"tasks"."id"` is the outer row; the expiry is written
 * in the same ISO form as Date#toISOString.
 */
export const pendingCartColumn = sql<PendingCartSummary | null>`(
  SELECT json_build_object(
    'id', c.id,
    'status', c.status,
    'contentHash', c.content_hash,
    'dispatchCount', (SELECT count(*)::int FROM cart_dispatches d WHERE d.cart_id = c.id AND d.removed_at IS NULL),
    'timeBoxedExpiresAt', to_char(c.time_boxed_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  )
  FROM carts c
  WHERE c.task_id = "tasks"."id" AND c.status IN ('pending_approval', 'time_boxed')
  ORDER BY c.created_at DESC, c.id DESC
  LIMIT 1
)`;
