import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { accounts, creditBlockedTasks, teamMemberships, tasks, users, type CreditBudgetRow, type TaskRow } from '@/db/schema';
import { recordActivities } from '@/server/tasks/activities';
import { applyChange } from '@/server/tasks/move';
import { queueWakeRun } from '@/server/tasks/runs';
import { plan } from '@/server/tasks/transitions';
import { userHasRoom } from './room';

/*
 * A task whose run stopped on a spent budget waits in credits_blocked (noted in
 * credit_blocked_tasks). When a budget gets room again (a top-up, a raised limit, a deleted
 * budget, a new period) the tasks of the users it covers resume: back to pending with a queued
 * run, as a woken task does; only users whom no covering budget still blocks.
 */

/** The run that stopped on a spent budget notes its task (in the run's end transaction). */
export async function noteBlockedTask(tx: Tx, task: Pick<TaskRow, 'id' | 'accountId' | 'userId'>, budgetId: string): Promise<void> {
  await tx
    .insert(creditBlockedTasks)
    .values({ taskId: task.id, accountId: task.accountId, userId: task.userId, budgetId })
    .onConflictDoUpdate({ target: creditBlockedTasks.taskId, set: { budgetId, createdAt: new Date() } });
}

/** The users a budget covers: null for the whole account. */
async function coveredUsers(tx: Tx, budget: CreditBudgetRow): Promise<string[] | null> {
  if (budget.scope === 'account') return null;
  if (budget.scope === 'user') return [budget.scopeId];
  if (budget.scope === 'organization') {
    const rows = await tx.select({ id: users.id }).from(users).where(and(eq(users.accountId, budget.accountId), eq(users.organizationId, budget.scopeId)));
    return rows.map((r) => r.id);
  }
  const rows = await tx.select({ id: teamMemberships.userId }).from(teamMemberships).where(and(eq(teamMemberships.teamId, budget.scopeId), eq(teamMemberships.status, 'active')));
  return rows.map((r) => r.id);
}

const RESUMED_NOTE = 'Credits were restored: the task goes on.';

/**
 * Resumes the credits_blocked tasks of these users of the account (every user when null) whose
 * budgets all have room now. Each task is locked and checked again; notes of tasks that moved on
 * meanwhile (stopped, marked done) go. A frozen account's tasks wait until it is released.
 */
export async function resumeBlockedTasks(tx: Tx, accountId: string, userIds: string[] | null, now = new Date()): Promise<string[]> {
  if (userIds && !userIds.length) return [];
  const [account] = await tx.select({ killSwitch: accounts.killSwitch }).from(accounts).where(eq(accounts.id, accountId));
  if (!account || account.killSwitch) return [];
  const noted = await tx
    .select({ taskId: creditBlockedTasks.taskId, userId: creditBlockedTasks.userId })
    .from(creditBlockedTasks)
    .where(and(eq(creditBlockedTasks.accountId, accountId), userIds ? inArray(creditBlockedTasks.userId, userIds) : undefined));
  const resumed: string[] = [];
  const room = new Map<string, boolean>();
  for (const { taskId, userId } of noted) {
    if (!room.has(userId)) room.set(userId, await userHasRoom(tx, accountId, userId, now));
    if (!room.get(userId)) continue;
    const [task] = await tx.select().from(tasks).where(eq(tasks.id, taskId)).for('update', { skipLocked: true });
    // Another transaction holds it (a process call resuming it, say): the next pass looks again.
    if (!task) continue;
    await tx.delete(creditBlockedTasks).where(eq(creditBlockedTasks.taskId, taskId));
    if (task.status !== 'credits_blocked') continue;
    const woken = await applyChange(tx, task, plan(task, 'resume', 'pending', undefined, now), 'resume');
    await recordActivities(tx, woken, [{ kind: 'system', content: RESUMED_NOTE }]);
    await queueWakeRun(tx, woken, 'wake');
    resumed.push(taskId);
  }
  return resumed;
}

/** After a budget changed in a way that may give room: the tasks of the users it covers. */
export async function resumeForBudget(tx: Tx, budget: CreditBudgetRow, now = new Date()): Promise<string[]> {
  return resumeBlockedTasks(tx, budget.accountId, await coveredUsers(tx, budget), now);
}

/** The sweep: every account with blocked tasks, each in its own transaction (a new period gives room without anyone asking). */
export async function resumeAllBlocked(db: Db, now = new Date()): Promise<{ resumed: number }> {
  const { rows } = await db.execute<{ account_id: string }>(sql`SELECT DISTINCT account_id FROM ${creditBlockedTasks}`);
  let resumed = 0;
  for (const { account_id } of rows) {
    resumed += (await db.transaction((tx) => resumeBlockedTasks(tx, account_id, null, now))).length;
  }
  return { resumed };
}
