import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { calendarConnections, notices } from '@/db/schema';
import { failStaleCalendarWaits } from '@/server/calendars/access';
import { syncConnection } from '@/server/calendars/sync';
import { useCartHarness } from '../approvals/execution-harness';
import { connectCalendars } from '../helpers/calendar-oauth';
import { call, newAccount } from '../helpers/client';
import { useCalendarStandIns } from './stand-ins';

/**
 * Access states for calendars (issue 43; spec 6, Agent tools; spec 2, deferred_access and
 * failed_access): a task whose run needs a calendar the user has not connected rests in
 * deferred_access, the user gets a notice saying how to connect one, and connecting a CalDAV
 * calendar (a real Radicale) makes the task go on by itself, the calendar now read. A connection
 * that stops working defers the task the same way; 7 days of it (failing_since moved back in the
 * database) and the task fails (failed_access) with a notice; the connection working again
 * resumes it.
 */
const h = useCartHarness();
const { app, person, stagingRun, settle } = h;

const providers = useCalendarStandIns({ radicale: true });

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (hours: number) => new Date(Math.ceil(Date.now() / HOUR) * HOUR + hours * HOUR);
const utc = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
let n = 0;

/** Every result of tool `name` the model was given in the requests of task `title`, in order (one per run that called it). */
function toolResults(title: string, name: string): string[] {
  const out = new Set<string>();
  for (const r of h.state.llm.requests.filter((q) => JSON.stringify(q.messages).includes(`Task: ${title}`))) {
    const calls = r.messages.filter((m: any) => m.role === 'assistant' && m.tool_calls).flatMap((m: any) => m.tool_calls);
    for (const c of calls.filter((x: any) => x.function.name === name)) {
      const result = r.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === c.id);
      if (result) out.add(`${c.id}\u0000${String(result.content)}`);
    }
  }
  return [...out].map((s) => s.split('\u0000')[1]);
}

const taskOf = async (p: { key: string }, taskId: string) => {
  const res = await call(app(), `/tasks/${taskId}`, { key: p.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.task as { status: string };
};
const accessNotices = (taskId: string) =>
  h.db().select().from(notices).where(and(eq(notices.taskId, taskId), eq(notices.kind, 'calendar_access'))).orderBy(notices.createdAt);

/** A Radicale user with a Work calendar holding one busy hour. */
async function davUser(busyStart: Date) {
  const dav = `access${++n}${Date.now().toString(36)}`;
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  providers.radicale.addUser(dav, password);
  await providers.radicale.makeCalendar(dav, 'work', { name: 'Work' });
  const ics = [
    'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//EN', 'BEGIN:VEVENT', `UID:busy-${dav}`, 'DTSTAMP:20260101T000000Z',
    `DTSTART:${utc(busyStart)}`, `DTEND:${utc(new Date(busyStart.getTime() + HOUR))}`, 'SUMMARY:Dentist', 'END:VEVENT', 'END:VCALENDAR', '',
  ].join('\r\n');
  await providers.radicale.put(dav, 'work', 'dentist.ics', ics);
  return { dav, password };
}

describe('no calendar connected', () => {
  it('the task waits in deferred_access with a notice on how to connect one, and goes on once a CalDAV calendar is connected', async () => {
    const p = await person(await newAccount(app()));
    // Notices at any hour (quiet hours would hold this one, not urgent, until working hours).
    const prefs = await call(app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { notifications: { quietHours: false } } } });
    expect(prefs.status, JSON.stringify(prefs.body)).toBe(200);
    const title = `Find a time with Bob ${++n}`;
    const range = { from: at(0).toISOString(), to: at(72).toISOString() };
    const { taskId } = await stagingRun(p, [{ name: 'free_busy', arguments: range }], { title });

    // The task rests waiting for access, and says why in its conversation.
    expect((await taskOf(p, taskId)).status).toBe('deferred_access');
    const activities = await call(app(), `/tasks/${taskId}/activities`, { key: p.key });
    expect(activities.status).toBe(200);
    expect(JSON.stringify(activities.body.activities)).toContain('I need access to your calendar for this');
    // The user is asked to connect one, and told how (CalDAV always; Google and Microsoft where configured).
    const [notice, ...more] = await accessNotices(taskId);
    expect(more).toEqual([]);
    expect(notice).toMatchObject({ userId: p.id, linkPath: `/tasks/${taskId}` });
    expect(notice.subject).toContain(title);
    expect(notice.text).toContain('you have not connected one');
    expect(notice.text).toMatch(/CalDAV.*\/api\/calendar-connections/);
    // The notice reaches the user's mailbox.
    await h.until(async () => h.smtp.capture.received.find((m) => (m.parsed.subject ?? '').startsWith('Connect your calendar for:') && m.parsed.text?.includes(title)) ?? null, 20_000);
    // Nothing moves it while nothing changed.
    await settle(500);
    expect((await taskOf(p, taskId)).status).toBe('deferred_access');
    expect(await h.runsOf(taskId)).toHaveLength(1);

    // The user connects a CalDAV calendar: the task goes on by itself and this time the calendar is read.
    const busyStart = at(26);
    const { dav, password } = await davUser(busyStart);
    h.state.llm.enqueue({ toolCalls: [{ name: 'free_busy', arguments: range }] });
    const connected = await call(app(), '/calendar-connections', { key: p.key, body: { provider: 'caldav', url: providers.radicale.url, username: dav, password } });
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);
    const runs = await h.until(async () => {
      const all = await h.runsOf(taskId);
      return all.length === 2 ? all : null;
    }, 20_000);
    expect(runs[1].trigger).toBe('wake');
    expect((await h.ended(runs[1].id)).status).toBe('finished');
    // The resumed run saw the first call's answer (no calendar, the task deferred) and the second's: the busy hour.
    const results = toolResults(title, 'free_busy');
    expect(results).toHaveLength(2);
    expect(results[0]).toContain('"needsCalendar":true');
    expect(results[0]).toContain('"taskStatus":"deferred_access"');
    const free = JSON.parse(results[1].replace(/^<untrusted-data[^>]*>\n/, '').replace(/\n<\/untrusted-data>$/, ''));
    expect(free.busy).toEqual([{ start: busyStart.toISOString(), end: new Date(busyStart.getTime() + HOUR).toISOString() }]);
    expect((await taskOf(p, taskId)).status).not.toMatch(/access/);
  });

  it('create_calendar_event with nobody to invite waits for a calendar too; with attendees it goes out as an invitation by email (no wait)', async () => {
    const p = await person(await newAccount(app()));
    const alone = await stagingRun(p, [{ name: 'create_calendar_event', arguments: { title: 'Focus time', start: at(30).toISOString(), end: at(31).toISOString() } }], { title: `Block focus time ${++n}` });
    expect((await taskOf(p, alone.taskId)).status).toBe('deferred_access');
    expect(await accessNotices(alone.taskId)).toHaveLength(1);

    const invite = await stagingRun(p, [{ name: 'create_calendar_event', arguments: { title: 'Lunch', start: at(30).toISOString(), end: at(31).toISOString(), attendees: ['bob@partner.example'] } }], {
      title: `Lunch with Bob ${++n}`,
    });
    expect((await taskOf(p, invite.taskId)).status).not.toMatch(/access/);
    expect(toolResults(`Lunch with Bob ${n}`, 'create_calendar_event')[0]).toMatch(/"staged":true/);
    expect(await accessNotices(invite.taskId)).toEqual([]);
  });
});

describe('connecting Google Calendar by OAuth', () => {
  it('the notice links to the hosted connect page; finishing the OAuth connection resumes the task', async () => {
    const p = await person(await newAccount(app()));
    const { taskId } = await stagingRun(p, [{ name: 'list_events', arguments: { from: at(0).toISOString(), to: at(48).toISOString() } }], { title: `My day tomorrow ${++n}` });
    expect((await taskOf(p, taskId)).status).toBe('deferred_access');
    const [notice] = await accessNotices(taskId);
    expect(notice.text).toContain(`/api/oauth/calendar/connect?provider=google&returnTo=%2Ftasks%2F${taskId}`);

    const address = `gaccess${n}.${Date.now().toString(36)}@gmail.test`;
    providers.gmail.addMailbox(address);
    providers.gcal.addUser(address);
    providers.gmail.oauth.consentAs = address;
    await connectCalendars(app(), p.key, 'google');
    const runs = await h.until(async () => {
      const r = await h.runsOf(taskId);
      return r.length === 2 ? r : null;
    }, 20_000);
    expect(runs[1].trigger).toBe('wake');
    await h.ended(runs[1].id);
    expect((await taskOf(p, taskId)).status).not.toMatch(/access/);
  });
});

describe('a connection that stops working', () => {
  it('defers the task; 7 days of failing moves it to failed_access with a notice; the connection working again resumes it', async () => {
    const p = await person(await newAccount(app()));
    const { dav, password } = await davUser(at(50));
    const connected = await call(app(), '/calendar-connections', { key: p.key, body: { provider: 'caldav', url: providers.radicale.url, username: dav, password } });
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);
    const connectionId = connected.body.connection.id as string;
    // The server has refused the sign-in for two hours (past the hour a failing connection is still read).
    const failing = (since: Date) =>
      h.db().update(calendarConnections).set({ status: 'failing', lastSyncError: 'The server refused the sign-in', failingSince: since }).where(eq(calendarConnections.id, connectionId));
    await failing(new Date(Date.now() - 2 * HOUR));

    const title = `What is on this week ${++n}`;
    const { taskId } = await stagingRun(p, [{ name: 'list_events', arguments: { from: at(0).toISOString(), to: at(96).toISOString() } }], { title });
    expect((await taskOf(p, taskId)).status).toBe('deferred_access');
    const [deferred] = await accessNotices(taskId);
    expect(deferred.text).toContain('its connection is not working');

    // Within the 7 days the sweep leaves it waiting.
    expect(await failStaleCalendarWaits(h.db())).not.toContain(taskId);
    expect((await taskOf(p, taskId)).status).toBe('deferred_access');

    // Failing for 8 days: the sweep (the engine's calendar-access-sweep) fails the task, and the user is told.
    await failing(new Date(Date.now() - 8 * DAY));
    const { inngest } = await import('@/inngest/client');
    const { calendarReminderEvents } = await import('@/inngest/functions/calendar-reminders');
    await inngest.send(calendarReminderEvents.calendarAccessDue.create({}));
    await h.until(async () => ((await taskOf(p, taskId)).status === 'failed_access' ? true : null), 20_000);
    const all = await accessNotices(taskId);
    expect(all).toHaveLength(2);
    expect(all[1].subject).toContain('Task stopped');
    expect(all[1].text).toContain('has not worked for 7 days');
    // A second sweep changes nothing and tells nobody again.
    expect(await failStaleCalendarWaits(h.db())).not.toContain(taskId);
    expect(await accessNotices(taskId)).toHaveLength(2);

    // The calendar works again (the next sync succeeds): the task goes on.
    const synced = await syncConnection(h.db(), connectionId);
    expect(synced.ok, JSON.stringify(synced)).toBe(true);
    const runs = await h.until(async () => {
      const r = await h.runsOf(taskId);
      return r.length === 2 ? r : null;
    }, 20_000);
    expect(runs[1].trigger).toBe('wake');
    await h.ended(runs[1].id);
    expect((await taskOf(p, taskId)).status).not.toMatch(/access/);
  });

  it('a connection already failing for 7 days fails the task at once (failed_access)', async () => {
    const p = await person(await newAccount(app()));
    const { dav, password } = await davUser(at(50));
    const connected = await call(app(), '/calendar-connections', { key: p.key, body: { provider: 'caldav', url: providers.radicale.url, username: dav, password } });
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);
    await h.db().update(calendarConnections).set({ status: 'failing', lastSyncError: 'gone', failingSince: new Date(Date.now() - 9 * DAY) }).where(eq(calendarConnections.id, connected.body.connection.id));
    const { taskId } = await stagingRun(p, [{ name: 'free_busy', arguments: { from: at(0).toISOString(), to: at(24).toISOString() } }], { title: `Am I free tomorrow ${++n}` });
    expect((await taskOf(p, taskId)).status).toBe('failed_access');
    const [notice] = await accessNotices(taskId);
    expect(notice.subject).toContain('Task stopped');
  });
});
