import type { CronSpread } from '@/server/executor/cron-schedule';

/**
 * When Steward's cron functions fire within their minute under the built-in executor
 * (server/executor/cron-schedule.ts explains the rule). The sweeps (audits, budgets, carts'
 * safety net, notices, mailboxes, calendars' sync, embeddings...) each fire at their own second of
 * the minute's first 15, so they no longer land on second 0 together. What a person scheduled
 * fires on the minute: task alarms and scheduled tasks, calendar reminders, and workflow
 * triggers. scripts/start.ts passes this to the executor and its ingress.
 */
export const cronSpread: CronSpread = {
  windowMs: 15_000,
  exact: ['task-wakeups', 'calendar-reminders', 'workflow-scheduler'],
};
