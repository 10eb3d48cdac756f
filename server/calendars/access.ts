import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { accounts, calendarConnections, tasks, type CalendarConnectionRow, type CalendarHold, type TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { gmailSettings } from '@/server/channels/gmail/config';
import { graphSettings } from '@/server/channels/graph/config';
import { siteOrigin } from '@/server/hosted/origin';
import { logger } from '@/server/logger';
import { createNotice } from '@/server/notices/create';
import { applyChange } from '@/server/tasks/move';
import { queueWakeRun } from '@/server/tasks/runs';
import { allowed, plan } from '@/server/tasks/transitions';

/*
 * Access states for calendars (spec 6, Agent tools; spec 2, Task statuses deferred_access and
 * failed_access "for missing calendar or account access"). A tool that needs a calendar asks
 * requireCalendar() first: with none the user can use, the task rests in deferred_access (its
 * accessHold names the calendar) and the user gets a notice saying how to connect one. Connecting
 * one (CalDAV, Google, Microsoft) or a failing one syncing again wakes those tasks
 * (calendarAccessGranted); a connection revoked or failing for ACCESS_GRACE_MS moves the tasks
 * still waiting to failed_access with a notice (failStaleCalendarWaits, run by the sweep).
 */

/** How long a revoked or failing connection is waited for before the tasks needing it fail (spec 6: 7 days). */
export const ACCESS_GRACE_MS = 7 * 86_400_000;

/**
 * A failing connection still serves its local copy for this long (a server that is briefly down);
 * past it (a refused sign-in, a server gone) the calendar counts as not connected.
 */
export const FAILING_TOLERANCE_MS = 3_600_000;

/** Since when a connection is unusable: a failing one since its first failed sync, a revoked one since it was revoked (its last change). */
const unusableSince = (c: Pick<CalendarConnectionRow, 'status' | 'failingSince' | 'updatedAt'>) => (c.status === 'revoked' ? c.updatedAt : (c.failingSince ?? c.updatedAt));

export type CalendarAccess =
  | { usable: true }
  /** `stale`: a connection exists but has been revoked or failing for ACCESS_GRACE_MS or more (failed_access at once). */
  | { usable: false; connection: Pick<CalendarConnectionRow, 'id' | 'status' | 'failingSince' | 'updatedAt'> | null; stale: boolean };

/**
 * Whether the user has a calendar Steward can use: an active connection, or one failing for less
 * than FAILING_TOLERANCE_MS (its local copy is still read while the sync retries). Otherwise the
 * unusable connection that failed last, if any, and whether it is past the 7 days' grace.
 */
export async function calendarAccess(db: Tx, userId: string, now = new Date()): Promise<CalendarAccess> {
  const rows = await db
    .select({ id: calendarConnections.id, status: calendarConnections.status, failingSince: calendarConnections.failingSince, updatedAt: calendarConnections.updatedAt })
    .from(calendarConnections)
    .where(eq(calendarConnections.userId, userId));
  const failingFor = (c: (typeof rows)[number]) => now.getTime() - unusableSince(c).getTime();
  const within = (c: (typeof rows)[number]) => failingFor(c) < ACCESS_GRACE_MS;
  if (rows.some((c) => c.status === 'active' || (c.status === 'failing' && failingFor(c) < FAILING_TOLERANCE_MS))) return { usable: true };
  if (!rows.length) return { usable: false, connection: null, stale: false };
  const freshest = rows.reduce((a, b) => (unusableSince(b) > unusableSince(a) ? b : a));
  return { usable: false, connection: freshest, stale: !within(freshest) };
}

/** What a tool answers the model when it cannot go on without a calendar (the ToolOutcome shape of the agent runtime). */
export type CalendarMissing = { output: { needsCalendar: true; taskStatus: TaskRow['status']; message: string }; say: string; endsRun: true };

/**
 * The one call a calendar tool makes before it needs the user's calendar: null when one can be
 * used; otherwise the task is moved (deferred_access, or failed_access when the only connection
 * has been unusable past the grace), the user is told how to connect one, and the run ends with
 * what to say. `task` is the executing task of the run, `run` its id and clock.
 */
export async function requireCalendar(db: Tx, actor: UserActor, task: TaskRow, run: { runId: string; now: Date }): Promise<CalendarMissing | null> {
  const access = await calendarAccess(db, actor.user.id, run.now);
  if (access.usable) return null;
  const failed = access.stale;
  const hold: CalendarHold = { kind: 'calendar', since: run.now.toISOString(), connectionId: access.connection?.id ?? null };
  const moved = await applyChange(db, task, { ...plan(task, 'wait', failed ? 'failed_access' : 'deferred_access', undefined, run.now), accessHold: hold }, 'wait');
  await accessNotice(db, moved, failed ? 'failed' : access.connection ? 'broken' : 'missing', `calendar_access:${run.runId}`, run.now);
  const say = failed
    ? 'I need your calendar for this, but its connection has not worked for a week. Connect it again and tell me to go on.'
    : access.connection
      ? 'I need your calendar for this, but its connection is not working. Connect it again and I will go on.'
      : 'I need access to your calendar for this. Connect one (Google, Microsoft 365 or any CalDAV calendar) and I will go on.';
  logger.info({ taskId: task.id, userId: actor.user.id, status: moved.status }, 'calendar: task waits for a calendar connection');
  return { output: { needsCalendar: true, taskStatus: moved.status, message: say }, say, endsRun: true };
}

/** How to connect: the hosted app's links for the OAuth providers this deployment has, and the CalDAV call. */
async function howToConnect(db: Tx, accountId: string, taskId: string): Promise<string> {
  const [account] = await db.select({ hostedDomain: accounts.hostedDomain }).from(accounts).where(eq(accounts.id, accountId));
  const origin = siteOrigin(account?.hostedDomain ?? null).origin;
  const back = `/tasks/${taskId}`;
  const link = (provider: string) => `${origin}/api/oauth/calendar/connect?${new URLSearchParams({ provider, returnTo: back })}`;
  const lines = [
    ...(gmailSettings() ? [`- Google Calendar: ${link('google')}`] : []),
    ...(graphSettings() ? [`- Microsoft 365: ${link('microsoft')}`] : []),
    `- Any CalDAV calendar (Fastmail, iCloud, Nextcloud, Radicale...): add it with its URL, your username and an app password (POST ${origin}/api/calendar-connections with {"provider": "caldav", "url", "username", "password"}).`,
  ];
  return lines.join('\n');
}

type Why = 'missing' | 'broken' | 'failed';

async function accessNotice(db: Tx, task: TaskRow, why: Why, dedupeKey: string, now: Date): Promise<void> {
  const intro: Record<Why, string> = {
    missing: `Your assistant needs your calendar for the task "${task.title}", and you have not connected one. The task waits until you do, then goes on by itself.`,
    broken: `Your assistant needs your calendar for the task "${task.title}", but its connection is not working (revoked, or the calendar refuses the sign-in). The task waits until you connect it again, then goes on by itself.`,
    failed: `The task "${task.title}" stopped: it needs your calendar, and the calendar's connection has not worked for 7 days. Connect it again and the task goes on; or answer this message to tell your assistant what to do instead.`,
  };
  await createNotice(
    db,
    {
      accountId: task.accountId,
      userId: task.userId,
      kind: 'calendar_access',
      dedupeKey,
      taskId: task.id,
      subject: why === 'failed' ? `Task stopped, calendar not connected: ${task.title}` : `Connect your calendar for: ${task.title}`,
      text: `${intro[why]}\n\nTo connect a calendar:\n${await howToConnect(db, task.accountId, task.id)}`,
      linkPath: `/tasks/${task.id}`,
    },
    now,
  );
}

/** The user's tasks waiting for a calendar (deferred or failed for it). */
const waitingForCalendar = (userId: string, statuses: TaskRow['status'][]) =>
  and(eq(tasks.userId, userId), inArray(tasks.status, statuses), sql`${tasks.accessHold} ->> 'kind' = 'calendar'`);

/**
 * A calendar the user can use again (connected, connected again, or syncing again): every task of
 * theirs that waited for one (deferred_access, or failed_access for it) goes back to pending with a
 * run queued, as a woken task does. Each task in its own savepoint: one moved meanwhile is left be.
 */
export async function calendarAccessGranted(db: Tx, userId: string, now = new Date()): Promise<string[]> {
  const waiting = await db.select({ id: tasks.id }).from(tasks).where(waitingForCalendar(userId, ['deferred_access', 'failed_access']));
  const woken: string[] = [];
  for (const { id } of waiting) {
    await db.transaction(async (tx) => {
      const [task] = await tx.select().from(tasks).where(eq(tasks.id, id)).for('update');
      if (!task || task.accessHold?.kind !== 'calendar' || !allowed(task.status, 'access_granted', 'pending')) return;
      const moved = await applyChange(tx, task, { ...plan(task, 'access_granted', 'pending', undefined, now), accessHold: null }, 'access_granted');
      await queueWakeRun(tx, moved, 'wake');
      woken.push(id);
    });
  }
  if (woken.length) logger.info({ userId, tasks: woken.length }, 'calendar: connected; waiting tasks resume');
  return woken;
}

/**
 * The sweep: tasks deferred for a calendar whose user still has none usable, and whose connection
 * has been revoked or failing for ACCESS_GRACE_MS, fail (failed_access) with a notice. A task that
 * waits with no connection at all stays deferred: the user was asked, and connecting resumes it.
 */
export async function failStaleCalendarWaits(db: Tx, now = new Date()): Promise<string[]> {
  const candidates = await db
    .selectDistinct({ userId: tasks.userId })
    .from(tasks)
    .innerJoin(calendarConnections, eq(calendarConnections.userId, tasks.userId))
    .where(and(eq(tasks.status, 'deferred_access'), sql`${tasks.accessHold} ->> 'kind' = 'calendar'`));
  const failed: string[] = [];
  for (const { userId } of candidates) {
    const access = await calendarAccess(db, userId, now);
    if (access.usable || !access.stale) continue;
    const waiting = await db.select({ id: tasks.id }).from(tasks).where(waitingForCalendar(userId, ['deferred_access']));
    for (const { id } of waiting) {
      await db.transaction(async (tx) => {
        const [task] = await tx.select().from(tasks).where(eq(tasks.id, id)).for('update');
        if (!task || task.accessHold?.kind !== 'calendar' || task.status !== 'deferred_access') return;
        const moved = await applyChange(tx, task, plan(task, 'access_lost', 'failed_access', undefined, now), 'access_lost');
        await accessNotice(tx, moved, 'failed', `calendar_access_failed:${task.id}:${task.accessHold.since}`, now);
        failed.push(id);
      });
    }
  }
  if (failed.length) logger.info({ tasks: failed.length }, 'calendar: tasks failed for a connection unusable past its grace');
  return failed;
}
