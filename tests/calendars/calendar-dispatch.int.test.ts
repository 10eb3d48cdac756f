import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { calendarEvents, cartDispatches, carts, taskRuns } from '@/db/schema';
import { caldavProvider } from '@/server/calendars/caldav/provider';
import { syncConnection } from '@/server/calendars/sync';
import { useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { useRadicale } from './stand-ins';

/**
 * The calendar's writes as approved dispatches (issue 43), against a real CalDAV server
 * (Radicale): a task run stages create / update / cancel through the real tools, the cart is
 * released (by the `calendar` cell, or by the person), and the real cart functions write to the
 * calendar. What a user can see: the event on the CalDAV server itself, GET /calendar/events at
 * once (before any sync), the dispatch's state and reason, the task woken; and what another user
 * cannot. A user with no calendar still gets invitations by email (METHOD:REQUEST / CANCEL).
 */
const h = useCartHarness();
const { app, person, stagingRun, cartOfRun, cartReaches, dispatchRow, readCart, approve, mails, settle } = h;
const db = () => h.db();
const radicale = useRadicale();

const HOUR = 3_600_000;
const at = (hours: number) => new Date(Math.ceil(Date.now() / HOUR) * HOUR + hours * HOUR);
const utc = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
const unfold = (ics: string) => ics.replace(/\r?\n[ \t]/g, '');
let n = 0;

type Person = Awaited<ReturnType<typeof person>>;

/** A person whose Radicale account has a "Work" calendar, connected to Steward. */
async function connected() {
  const p = await person(await newAccount(app()));
  const dav = `cal${++n}${Date.now().toString(36)}`;
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  radicale().addUser(dav, password);
  await radicale().makeCalendar(dav, 'work', { name: 'Work' });
  const res = await call(app(), '/calendar-connections', { key: p.key, body: { provider: 'caldav', url: radicale().url, username: dav, password } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const calendarId = res.body.connection.calendars[0].id as string;
  return { ...p, dav, password, calendarId, connectionId: res.body.connection.id as string };
}

const events = (key: string, from: Date, to: Date, calendarId?: string) =>
  call(app(), `/calendar/events?from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}${calendarId ? `&calendarId=${calendarId}` : ''}`, { key });

/** The event as the CalDAV server has it, by the UID Steward chose. */
const onServer = (p: { dav: string }, uid: string) => radicale().get(p.dav, 'work', `${encodeURIComponent(uid)}.ics`);

/** Stages the calls in one run and waits until the cart has settled; `manual`: the person approves it. */
async function released(p: Person, calls: Array<{ name: string; arguments: unknown }>, o: { manual?: boolean } = {}) {
  const { runId, taskId } = await stagingRun(p, calls, o.manual ? { approvalMode: 'manual' } : {});
  const cart = await cartOfRun(runId);
  if (o.manual) {
    expect(cart.status).toBe('pending_approval');
    const { contentHash } = await readCart(p, cart.id);
    const ok = await approve(p, cart.id, { contentHash });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  }
  const settled = await cartReaches(cart.id, ['executed', 'failed']);
  return { cart: settled, taskId, dispatch: await dispatchRow(cart.id), shown: (await readCart(p, cart.id)).dispatches[0] };
}

const createCall = (args: Record<string, unknown>) => ({ name: 'create_calendar_event', arguments: { title: 'Design review', start: at(26).toISOString(), end: at(27).toISOString(), ...args } });

describe('writing to a connected CalDAV calendar', () => {
  it('create, move and cancel through released dispatches: each lands on the server once and reads back at once', async () => {
    const p = await connected();
    const start = at(26);
    const end = at(27);

    // The `calendar` cell is auto by default: released when the run ends.
    const made = await released(p, [createCall({ start: start.toISOString(), end: end.toISOString(), attendees: ['bob@partner.example'], location: 'Room 4' })]);
    expect(made.cart.status).toBe('executed');
    expect(made.dispatch).toMatchObject({ type: 'calendar_event', actionType: 'calendar', deliveryState: 'provider_accepted', failureReason: null });
    expect(made.shown.payload).toMatchObject({ operation: 'create', calendarId: p.calendarId, title: 'Design review' });
    const uid = made.shown.payload.uid as string;
    expect(uid).toMatch(/@/);

    const server = await onServer(p, uid);
    expect(server.status).toBe(200);
    const ics = unfold(server.body);
    expect(ics).toContain(`UID:${uid}`);
    expect(ics).toContain('SUMMARY:Design review');
    expect(ics).toContain('LOCATION:Room 4');
    expect(ics).toMatch(new RegExp(`DTSTART[^:\\r\\n]*:${utc(start)}`));
    expect(ics).toMatch(/ATTENDEE[^\r\n]*mailto:bob@partner\.example/i);
    // The calendar invites: no invitation email from Steward.
    await settle(300);
    expect(mails()).toHaveLength(0);

    // Read back through the API at once, without a sync in between; kept as the assistant's.
    const read = await events(p.key, at(0), at(48));
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.events).toEqual([expect.objectContaining({ title: 'Design review', start: start.toISOString(), end: end.toISOString(), location: 'Room 4', calendarId: p.calendarId })]);
    const eventId = read.body.events[0].id as string;
    const [row] = await db().select().from(calendarEvents).where(eq(calendarEvents.id, eventId));
    expect(row).toMatchObject({ uid, madeByAssistant: true, userId: p.id });

    // Moved an hour later.
    const moved = await released(p, [{ name: 'update_calendar_event', arguments: { eventId, start: at(27).toISOString(), end: at(28).toISOString() } }]);
    expect(moved.cart.status).toBe('executed');
    expect(moved.shown.payload).toMatchObject({ operation: 'update', eventId, changed: ['start', 'end'], etag: row.etag });
    const after = unfold((await onServer(p, uid)).body);
    expect(after).toMatch(new RegExp(`DTSTART[^:\\r\\n]*:${utc(at(27))}`));
    expect(after).toContain('SUMMARY:Design review');
    expect((await events(p.key, at(0), at(48))).body.events).toEqual([expect.objectContaining({ id: eventId, start: at(27).toISOString(), end: at(28).toISOString() })]);

    // Cancelled: gone from the server and from the reads.
    const cancelled = await released(p, [{ name: 'cancel_calendar_event', arguments: { eventId, message: 'Sorry, something came up' } }]);
    expect(cancelled.cart.status).toBe('executed');
    expect((await onServer(p, uid)).status).toBe(404);
    expect((await events(p.key, at(0), at(48))).body.events).toEqual([]);
    await settle(300);
    expect(mails()).toHaveLength(0);
  });

  it('an event changed on the server behind Steward’s back: the approved update fails with calendar_conflict, writes nothing, and wakes the task', async () => {
    const p = await connected();
    const start = at(50);
    const base = (summary: string) =>
      ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//EN', 'BEGIN:VEVENT', 'UID:standup-1', 'DTSTAMP:20260101T000000Z', `DTSTART:${utc(start)}`, `DTEND:${utc(new Date(start.getTime() + HOUR))}`, `SUMMARY:${summary}`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    await radicale().put(p.dav, 'work', 'standup.ics', base('Standup'));
    // Put after the connection was made: a sync brings it in.
    expect((await syncConnection(db(), p.connectionId)).ok).toBe(true);
    const read = await events(p.key, at(0), at(72));
    const eventId = read.body.events.find((e: { title: string }) => e.title === 'Standup').id as string;

    const { runId, taskId } = await stagingRun(p, [{ name: 'update_calendar_event', arguments: { eventId, title: 'Standup (moved)', start: at(51).toISOString(), end: at(52).toISOString() } }], { approvalMode: 'manual' });
    const cart = await cartOfRun(runId);
    expect(cart.status).toBe('pending_approval');
    // Someone changes the event in another app meanwhile.
    const theirs = await radicale().put(p.dav, 'work', 'standup.ics', base('Standup with the client'));
    expect(theirs.status).toBeLessThan(300);

    const { contentHash } = await readCart(p, cart.id);
    expect((await approve(p, cart.id, { contentHash })).status).toBe(200);
    expect((await cartReaches(cart.id, ['executed', 'failed'])).status).toBe('failed');
    const d = await dispatchRow(cart.id);
    expect(d.deliveryState).toBe('failed');
    expect(d.failureReason).toMatch(/^calendar_conflict: /);
    // Their change stands, untouched.
    const server = unfold((await radicale().get(p.dav, 'work', 'standup.ics')).body);
    expect(server).toContain('SUMMARY:Standup with the client');
    expect(server).toMatch(new RegExp(`DTSTART[^:\\r\\n]*:${utc(start)}`));
    // The task is woken by the outcome and its run is told why.
    const woke = await h.until(async () => {
      const runs = await db().select().from(taskRuns).where(eq(taskRuns.taskId, taskId));
      return runs.find((r) => r.trigger === 'cart') ?? null;
    }, 20_000);
    expect(woke.trigger).toBe('cart');
  });

  it('a retry after a crash finds the event by its UID and does not create a second', async () => {
    const p = await connected();
    const { runId } = await stagingRun(p, [createCall({ title: 'Once only' })], { approvalMode: 'manual' });
    const cart = await cartOfRun(runId);
    const shown = (await readCart(p, cart.id)).dispatches[0];
    const uid = shown.payload.uid as string;
    // An earlier attempt claimed the send and wrote the event, then its process died before recording anything.
    const [d] = await db().select().from(cartDispatches).where(and(eq(cartDispatches.cartId, cart.id), eq(cartDispatches.index, 0)));
    await db().update(cartDispatches).set({ executedAt: new Date() }).where(eq(cartDispatches.id, d.id));
    const ics = [
      'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Steward//Calendar//EN', 'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z',
      `DTSTART:${utc(new Date(shown.payload.start))}`, `DTEND:${utc(new Date(shown.payload.end))}`, 'SUMMARY:Once only', 'END:VEVENT', 'END:VCALENDAR', '',
    ].join('\r\n');
    expect((await radicale().put(p.dav, 'work', `${encodeURIComponent(uid)}.ics`, ics)).status).toBeLessThan(300);

    const { contentHash } = await readCart(p, cart.id);
    expect((await approve(p, cart.id, { contentHash })).status).toBe(200);
    expect((await cartReaches(cart.id, ['executed', 'failed'])).status).toBe('executed');
    expect(await dispatchRow(cart.id)).toMatchObject({ deliveryState: 'provider_accepted' });

    // One event with that UID on the server (a full listing, as another client would see it), and one in the reads.
    const listing = await caldavProvider({ url: radicale().url, username: p.dav, password: p.password }).sync({ remoteId: `${radicale().url}/${p.dav}/work/`, cursor: null, timezone: null });
    expect(listing.changed.filter((e) => e.uid === uid)).toHaveLength(1);
    expect((await events(p.key, at(0), at(48))).body.events.filter((e: { title: string }) => e.title === 'Once only')).toHaveLength(1);
    expect(await db().select().from(calendarEvents).where(eq(calendarEvents.uid, uid))).toHaveLength(1);
  });

  it('another user can neither see the event nor stage a change to it', async () => {
    const p = await connected();
    const made = await released(p, [createCall({ title: 'Private' })]);
    expect(made.cart.status).toBe('executed');
    const eventId = (await events(p.key, at(0), at(48))).body.events[0].id as string;

    const other = await connected();
    const theirs = await events(other.key, at(0), at(48));
    expect(theirs.body.events).toEqual([]);
    expect((await events(other.key, at(0), at(48), p.calendarId)).status).toBe(404);

    // Their assistant is told "not found", and nothing is staged.
    const { runId, title } = await stagingRun(other, [{ name: 'cancel_calendar_event', arguments: { eventId } }]);
    const step = h.state.llm.requests.find((r) => JSON.stringify(r.messages).includes(`Task: ${title}`) && r.messages.some((m: any) => m.role === 'tool'))!;
    const result = step.messages.find((m: any) => m.role === 'tool');
    expect(result.content).toMatch(/not found/i);
    const staged = await db().select().from(cartDispatches).innerJoin(carts, eq(carts.id, cartDispatches.cartId)).where(eq(carts.runId, runId));
    expect(staged).toHaveLength(0);
    expect((await onServer(p, made.shown.payload.uid)).status).toBe(200);
  });
});

describe('without a calendar connected', () => {
  it('a create goes out as an invitation (METHOD:REQUEST) and its cancel as METHOD:CANCEL under the same UID', async () => {
    const p = await person(await newAccount(app()));
    const made = await released(p, [createCall({ title: 'Lunch', attendees: ['bob@partner.example'] })]);
    expect(made.cart.status).toBe('executed');
    const uid = made.shown.payload.uid as string;
    expect(made.shown.payload.calendarId).toBeNull();
    const invite = await h.until(async () => mails().find((m) => m.raw.includes('METHOD:REQUEST')) ?? null, 15_000);
    const sent = unfold(invite.parsed.attachments.map((x) => x.content.toString('utf8')).find((c) => c.includes('BEGIN:VCALENDAR'))!);
    expect(sent).toContain(`UID:${uid}`);
    expect(sent).toContain('SEQUENCE:0');

    const gone = await released(p, [{ name: 'cancel_calendar_event', arguments: { eventId: uid, message: 'Sorry' } }]);
    expect(gone.cart.status).toBe('executed');
    const cancel = await h.until(async () => mails().find((m) => /method=CANCEL/i.test(m.raw)) ?? null, 15_000);
    expect(cancel.envelopeTo).toEqual(['bob@partner.example']);
    const ics = cancel.parsed.attachments.map((x) => x.content.toString('utf8')).find((c) => c.includes('BEGIN:VCALENDAR'))!;
    const text = unfold(ics);
    expect(text).toContain('METHOD:CANCEL');
    expect(text).toContain(`UID:${uid}`);
    expect(text).toContain('STATUS:CANCELLED');
    expect(text).toContain('SEQUENCE:1');
  });
});
