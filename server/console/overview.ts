import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import {
  chatModelCalls,
  consoleMembers,
  organizations,
  phoneLineRequests,
  taskModelCalls,
  taskRuns,
  tasks,
  teams,
  users,
  webhookDeliveries,
  webhookEndpoints,
} from '@/db/schema';
import { assertOperates, type AccountOperator } from '@/server/accounts/operator';

/** Task statuses the overview counts as finished; every other one is open work. */
const FINISHED = ['completed', 'done_user_marked', 'handled_by_other', 'error', 'abandoned', 'archived'] as const;

type Counts = Record<string, number>;
type Row = {
  users: Counts | null;
  organizations: number;
  teams: number;
  tasks: Counts | null;
  tasks_week: number;
  spend_month: string;
  spend_week: string;
  failed_runs: number;
  failed_deliveries: number;
  disabled_endpoints: number;
  pending_lines: number;
  console_members: number;
  recent_failures: Array<{ taskId: string; title: string; error: string | null; at: string }> | null;
};

/**
 * The console's overview of one account (spec 6: users, organizations, teams, tasks, spend) and
 * what went wrong lately: three statements run at once, so the page waits for the slowest of them
 * whatever the account's size. Spend is the credits charged for model calls of tasks and chats, this calendar month
 * (UTC) and the last seven days.
 */
export async function consoleOverview(db: Db, accountId: string, by: AccountOperator, now = new Date()) {
  assertOperates(by, accountId);
  const week = new Date(now.getTime() - 7 * 24 * 3600_000);
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  // The recent failures take the five newest failed runs first (task_runs_account_failed, as does
  // their count), then only those tasks' titles: not a join of every run with every task.
  // Each model-call table is read once for both periods (the month's and the week's sums, FILTERed),
  // and the tasks once for the count per status and, of the same rows, this week's.
  const from = week < month ? week : month;
  const spend = (calls: typeof taskModelCalls | typeof chatModelCalls) => sql`(SELECT
      coalesce(sum(${calls.chargedCredits}) FILTER (WHERE ${calls.createdAt} >= ${month}), 0) AS month,
      coalesce(sum(${calls.chargedCredits}) FILTER (WHERE ${calls.createdAt} >= ${week}), 0) AS week
    FROM ${calls} WHERE ${calls.accountId} = ${accountId} AND ${calls.createdAt} >= ${from})`;
  // Three statements at once, each on its own connection: the tasks' count and the spend read
  // 10,000s of rows each at a large account, and read one after the other in one statement they
  // were most of the page's wait. They are separate snapshots, a few milliseconds apart: an overview
  // need not be one instant.
  const [counts, money, rest] = await Promise.all([
    db.execute<Pick<Row, 'tasks' | 'tasks_week'>>(sql`SELECT json_object_agg(s, n) AS tasks, coalesce(sum(w), 0)::int AS tasks_week
       FROM (SELECT ${tasks.status} AS s, count(*)::int AS n, count(*) FILTER (WHERE ${tasks.createdAt} >= ${week}) AS w
             FROM ${tasks} WHERE ${tasks.accountId} = ${accountId} GROUP BY 1) t`),
    db.execute<Pick<Row, 'spend_month' | 'spend_week'>>(sql`SELECT (tm.month + cm.month)::text AS spend_month, (tm.week + cm.week)::text AS spend_week
       FROM ${spend(taskModelCalls)} tm, ${spend(chatModelCalls)} cm`),
    db.execute<Omit<Row, 'tasks' | 'tasks_week' | 'spend_month' | 'spend_week'>>(sql`SELECT
    (SELECT json_object_agg(s, n) FROM (SELECT ${users.status} AS s, count(*)::int AS n FROM ${users} WHERE ${users.accountId} = ${accountId} GROUP BY 1) u) AS users,
    (SELECT count(*)::int FROM ${organizations} WHERE ${organizations.accountId} = ${accountId}) AS organizations,
    (SELECT count(*)::int FROM ${teams} WHERE ${teams.accountId} = ${accountId} AND ${teams.status} = 'active') AS teams,
    (SELECT count(*)::int FROM ${taskRuns} WHERE ${taskRuns.accountId} = ${accountId} AND ${taskRuns.status} = 'failed' AND ${taskRuns.createdAt} >= ${week}) AS failed_runs,
    (SELECT count(*)::int FROM ${webhookDeliveries} WHERE ${webhookDeliveries.accountId} = ${accountId} AND ${webhookDeliveries.status} = 'failed' AND ${webhookDeliveries.createdAt} >= ${week}) AS failed_deliveries,
    (SELECT count(*)::int FROM ${webhookEndpoints} WHERE ${webhookEndpoints.accountId} = ${accountId} AND ${webhookEndpoints.status} = 'disabled') AS disabled_endpoints,
    (SELECT count(*)::int FROM ${phoneLineRequests} WHERE ${phoneLineRequests.accountId} = ${accountId} AND ${phoneLineRequests.status} = 'pending') AS pending_lines,
    (SELECT count(*)::int FROM ${consoleMembers} WHERE ${consoleMembers.accountId} = ${accountId}) AS console_members,
    (SELECT json_agg(json_build_object('taskId', r.task_id, 'title', t.title, 'error', r.error,
              'at', to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY r.created_at DESC)
      FROM (SELECT task_id, error, created_at FROM ${taskRuns}
            WHERE account_id = ${accountId} AND status = 'failed' AND created_at >= ${week}
            ORDER BY created_at DESC LIMIT 5) r
      JOIN ${tasks} t ON t.id = r.task_id) AS recent_failures`),
  ]);
  const r: Row = { ...rest.rows[0]!, ...counts.rows[0]!, ...money.rows[0]! };
  const taskCounts = r.tasks ?? {};
  const total = Object.values(taskCounts).reduce((a, b) => a + b, 0);
  const finished = FINISHED.reduce((a, s) => a + (taskCounts[s] ?? 0), 0);
  const userCounts = r.users ?? {};
  return {
    ok: true as const,
    users: { total: Object.values(userCounts).reduce((a, b) => a + b, 0), active: userCounts.active ?? 0, inactive: userCounts.inactive ?? 0, suspended: userCounts.suspended ?? 0 },
    organizations: r.organizations,
    teams: r.teams,
    tasks: {
      total,
      open: total - finished,
      waitingOnUser: taskCounts.awaiting_user_input ?? 0,
      completed: (taskCounts.completed ?? 0) + (taskCounts.done_user_marked ?? 0),
      error: taskCounts.error ?? 0,
      createdThisWeek: r.tasks_week,
      byStatus: taskCounts,
    },
    spend: { thisMonthCredits: Number(r.spend_month), lastSevenDaysCredits: Number(r.spend_week), monthStart: month.toISOString() },
    errors: { failedRunsThisWeek: r.failed_runs, failedDeliveriesThisWeek: r.failed_deliveries, disabledWebhooks: r.disabled_endpoints, recentFailures: r.recent_failures ?? [] },
    pendingPhoneLines: r.pending_lines,
    consoleMembers: r.console_members,
  };
}
