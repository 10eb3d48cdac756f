import { and, eq, gt, inArray, isNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { handoffs, taskRuns } from '@/db/schema';
import { deploymentLimits, limitsFor, type Limits } from '@/server/accounts/limits';
import { AppError } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { readControl } from '../control';
import type { UserWorkspace } from './user-workspace';

/*
 * How many browsers run at once (spec 5, Limits): STEWARD_BROWSERS_PER_ACCOUNT per account (an
 * account's own override through the admin CLI's set-limits) and STEWARD_BROWSERS_MAX in all. A
 * browser costs about 176 MB, so a start past a cap first closes the least recently used browser
 * that is idle: of the same account when the account is full, of any account when the process
 * is. A busy browser is never closed; when every candidate is busy the start is refused with
 * 503 `browser_capacity`, which the agent's tools turn into a refusal the model reads and the
 * API answers as it is. Browsers are held per process (manager.ts), and so are the counts.
 */

/** Why a browser may not be closed to make room: anything that uses it now, or a person who may. */
async function busy(db: Db | null, ws: UserWorkspace, now: Date): Promise<boolean> {
  // A page action or a live view in this process.
  if (ws.held) return true;
  if (!db) return false;
  // A task whose run is working has a tab here: the run is using the browser between its tool calls too.
  const tasks = ws.taskIds();
  if (tasks.length) {
    const [running] = await db
      .select({ id: taskRuns.id })
      .from(taskRuns)
      .where(and(inArray(taskRuns.taskId, tasks), eq(taskRuns.status, 'running')))
      .limit(1);
    if (running) return true;
  }
  // A person holds it for a handoff, or an open handoff waits for them in this browser.
  if ((await readControl(db, ws.accountId, ws.userId)).operator === 'user') return true;
  const [open] = await db
    .select({ id: handoffs.id })
    .from(handoffs)
    .where(and(eq(handoffs.accountId, ws.accountId), eq(handoffs.userId, ws.userId), isNull(handoffs.closedAt), gt(handoffs.expiresAt, now)))
    .limit(1);
  return Boolean(open);
}

/** The least recently used idle browser among `candidates`, or null when every one is busy. */
async function leastRecentlyUsedIdle(db: Db | null, candidates: UserWorkspace[], now: Date): Promise<UserWorkspace | null> {
  const byAge = [...candidates].sort((a, b) => a.lastActiveAt.getTime() - b.lastActiveAt.getTime());
  for (const ws of byAge) {
    if (!ws.running) continue;
    // What cannot be checked counts as busy: a browser is never closed on a guess.
    const inUse = await busy(db, ws, now).catch((err: unknown) => {
      logger.warn({ err, accountId: ws.accountId, userId: ws.userId }, 'workspace: whether a browser is in use could not be read');
      return true;
    });
    if (!inUse) return ws;
  }
  return null;
}

export type CapacityScope = 'account' | 'deployment';

export const capacityRefusal = (scope: CapacityScope, limit: number) =>
  new AppError(
    503,
    'browser_capacity',
    scope === 'account'
      ? `The workspace browser cannot start now: this account already runs its limit of ${limit} browser${limit === 1 ? '' : 's'} (STEWARD_BROWSERS_PER_ACCOUNT) and every one is in use. Try again later, or do the task without the browser.`
      : `The workspace browser cannot start now: this Steward server already runs its limit of ${limit} browser${limit === 1 ? '' : 's'} (STEWARD_BROWSERS_MAX) and every one is in use. Try again later, or do the task without the browser.`,
    { scope, limit },
  );

/** The limits in force for the account; the deployment's when there is no database or it cannot be read. */
async function browserLimits(db: Db | null, accountId: string): Promise<Pick<Limits, 'browsersPerAccount' | 'browsersMax'>> {
  if (!db) return deploymentLimits();
  try {
    return await limitsFor(db, accountId);
  } catch (err) {
    logger.warn({ err, accountId }, 'workspace: the account’s limits could not be read; the deployment’s apply');
    return deploymentLimits();
  }
}

/**
 * Makes room for one more browser of `accountId`: closes idle browsers (least recently used
 * first) while a cap is reached, or throws `browser_capacity`. `running` are the browsers this
 * process runs; `reserved` counts starts admitted and still launching, per account and in all.
 * The caller serializes admissions, so two starts never both take the last place.
 */
export async function makeRoom(
  db: Db | null,
  accountId: string,
  running: () => UserWorkspace[],
  reserved: { forAccount: number; total: number },
  now = new Date(),
): Promise<void> {
  const limits = await browserLimits(db, accountId);
  const caps: Array<{ scope: CapacityScope; limit: number; mine: (ws: UserWorkspace) => boolean; pending: number }> = [
    { scope: 'account', limit: limits.browsersPerAccount, mine: (ws) => ws.accountId === accountId, pending: reserved.forAccount },
    { scope: 'deployment', limit: limits.browsersMax, mine: () => true, pending: reserved.total },
  ];
  for (const cap of caps) {
    for (;;) {
      const counted = running().filter((ws) => ws.running && cap.mine(ws));
      if (counted.length + cap.pending < cap.limit) break;
      const victim = await leastRecentlyUsedIdle(db, counted, now);
      if (!victim) throw capacityRefusal(cap.scope, cap.limit);
      // Checked again after the awaits above: work may have begun in it meanwhile; then look again.
      if (victim.held) continue;
      logger.info({ accountId: victim.accountId, userId: victim.userId, scope: cap.scope, limit: cap.limit }, 'workspace: closing the least recently used idle browser to make room');
      await victim.stop();
    }
  }
}
