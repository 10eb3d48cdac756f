import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assistants, calendarConnections, contacts } from '@/db/schema';
import type { CalendarProvider, RemoteEvent, SyncResult } from '@/server/calendars/provider';
import { syncConnection } from '@/server/calendars/sync';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import { useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { useTwilioFake } from '../helpers/use-twilio-fake';

/*
 * Issue 46: contacts learned without being told carry their `source` (spec 2, Contact):
 * `calendar` for the people on a new event of the user's calendar (after the first import, not
 * the user, their assistants, rooms, nor an all-hands), `voice` for a caller with a proven number
 * who left a message (a number no contact holds yet; such a contact has no email until given one).
 * The calendar is a scripted provider at the sync's adapter seam (syncConnection's `provider`);
 * calls come from a loopback Twilio that signs its webhooks as Twilio does.
 */

const h = useCartHarness();
const twilio = useTwilioFake('+1628591', (f) => {
  f.state.voiceUrl = `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/voice`;
});

const HOUR = 3_600_000;
let seq = 0;

function event(o: { title: string; inHours: number; attendees: Array<{ email: string; name?: string | null }>; organizer?: string | null }): RemoteEvent {
  const start = new Date(Date.now() + o.inHours * HOUR);
  return {
    providerEventId: `ev-${++seq}`,
    uid: `uid-${seq}`,
    etag: null,
    status: 'confirmed',
    title: o.title,
    description: null,
    location: null,
    start,
    end: new Date(start.getTime() + HOUR),
    allDay: false,
    timezone: 'UTC',
    attendees: o.attendees.map((a) => ({ email: a.email, name: a.name ?? null, response: 'needs-action' as const })),
    organizer: o.organizer ?? null,
    recurrence: null,
    recurrenceOf: null,
    originalStart: null,
    url: null,
  };
}

/** A calendar whose next sync returns what the test queues. */
function scriptedCalendar() {
  const queue: SyncResult[] = [];
  let cursor = 0;
  const provider = {
    name: 'caldav',
    listCalendars: async () => [{ remoteId: 'work', name: 'Work', color: null, timezone: 'UTC', readOnly: false, primary: true }],
    sync: async () => queue.shift() ?? { changed: [], deleted: [], cursor: `c${++cursor}`, full: false },
  } as unknown as CalendarProvider;
  return { provider, next: (changed: RemoteEvent[]) => queue.push({ changed, deleted: [], cursor: `c${++cursor}`, full: false }) };
}

const listed = async (key: string, query: string) => (await call(h.app(), `/contacts?perPage=100&${query}`, { key })).body.contacts as Array<Record<string, any>>;

describe('source: calendar', () => {
  it('the people on a new event become contacts once the calendar is imported; not the user, their assistant, a room, a known contact, an all-hands or a past event', async () => {
    const acct = await newAccount(h.app());
    const p = await h.person(acct);
    const assistant = (await call(h.app(), `/assistants/${p.assistantId}`, { key: p.key })).body.assistant;
    const known = await call(h.app(), '/contacts', { key: p.key, body: { email: 'carol@partner.example', name: 'Carol' } });
    expect(known.status).toBe(201);
    const [connection] = await h
      .db()
      .insert(calendarConnections)
      .values({ accountId: acct.accountId, userId: p.id, provider: 'caldav', url: 'https://dav.example/', username: 'me' })
      .returning();
    const cal = scriptedCalendar();

    // The first import: its events teach nothing.
    cal.next([event({ title: 'Old friends', inHours: 24, attendees: [{ email: 'zed@old.example', name: 'Zed' }] })]);
    expect((await syncConnection(h.db(), connection!.id, { provider: cal.provider })).ok).toBe(true);
    expect(await listed(p.key, 'sourceType=calendar')).toEqual([]);

    const crowd = Array.from({ length: 30 }, (_, i) => ({ email: `crowd${i}@big.example` }));
    cal.next([
      event({
        title: 'Quarterly review',
        inHours: 48,
        organizer: 'Dana@Partner.example',
        attendees: [
          { email: 'Bob@Partner.example', name: 'Bob Stone' },
          { email: p.email, name: 'Me' },
          { email: assistant.email, name: assistant.name },
          { email: 'c_188abc@resource.calendar.google.com', name: 'Room 4' },
          { email: 'carol@partner.example', name: 'Carol again' },
        ],
      }),
      event({ title: 'All hands', inHours: 72, attendees: crowd }),
      event({ title: 'Last week', inHours: -170, attendees: [{ email: 'past@partner.example' }] }),
    ]);
    expect((await syncConnection(h.db(), connection!.id, { provider: cal.provider })).ok).toBe(true);

    const learned = await listed(p.key, 'sourceType=calendar');
    expect(learned.map((c) => c.email).sort()).toEqual(['bob@partner.example', 'dana@partner.example']);
    expect(learned.find((c) => c.email === 'bob@partner.example')).toMatchObject({ name: 'Bob Stone', source: { type: 'calendar', userId: p.id } });
    // The contact the user made stays theirs, unchanged and alone.
    const carol = (await listed(p.key, 'search=carol@partner')).filter((c) => c.email === 'carol@partner.example');
    expect(carol).toHaveLength(1);
    expect(carol[0]).toMatchObject({ name: 'Carol', source: { type: 'manual' } });

    // The same people on a later event are not learned twice.
    cal.next([event({ title: 'Follow-up', inHours: 96, attendees: [{ email: 'bob@partner.example' }, { email: 'erin@partner.example' }] })]);
    expect((await syncConnection(h.db(), connection!.id, { provider: cal.provider })).ok).toBe(true);
    expect((await listed(p.key, 'sourceType=calendar')).map((c) => c.email).sort()).toEqual(['bob@partner.example', 'dana@partner.example', 'erin@partner.example']);
  });
});

/** A user whose assistant answers calls and takes messages from strangers. */
async function callee() {
  const acct = await newAccount(h.app());
  const p = await h.person(acct);
  const request = await call(h.app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { sms: true, voice: true } } });
  expect(request.status, JSON.stringify(request.body)).toBe(201);
  const line = twilio.nextNumber();
  await assignPhoneLine(h.db(), { requestId: request.body.request.id, number: line, channels: 'sms,voice' });
  await h.db().update(assistants).set({ talkToStrangers: true }).where(eq(assistants.id, p.assistantId));
  return { ...p, line };
}

describe('source: voice', () => {
  it('a caller with a proven number who leaves a message becomes a contact with that number, once; an unproven number or a known one does not', async () => {
    const p = await callee();
    const caller = twilio.nextNumber();
    const first = await twilio.fake.call({ from: caller, to: p.line, says: ['Hi, this is Frank, please call me back'] });
    expect(first.heard.join(' ')).toContain('pass it on');
    let learned = await listed(p.key, 'sourceType=voice');
    expect(learned).toHaveLength(1);
    expect(learned[0]).toMatchObject({ email: '', emails: [], phones: [{ number: caller, primary: true, source: 'voice' }], source: { type: 'voice', userId: p.id } });

    await twilio.fake.call({ from: caller, to: p.line, says: ['It is Frank again'] });
    expect(await listed(p.key, 'sourceType=voice')).toHaveLength(1);

    // Caller id without attestation could be anyone's number: nothing is learned from it.
    await twilio.fake.call({ from: twilio.nextNumber(), to: p.line, says: ['Hello'], stir: null });
    // A number a contact already holds is not learned again.
    const knownNumber = twilio.nextNumber();
    expect((await call(h.app(), '/contacts', { key: p.key, body: { email: 'gina@partner.example', phones: [{ number: knownNumber }] } })).status).toBe(201);
    await twilio.fake.call({ from: knownNumber, to: p.line, says: ['Gina here'] });
    learned = await listed(p.key, 'sourceType=voice');
    expect(learned.map((c) => c.phones[0].number)).toEqual([caller]);

    // Given an address later, the contact takes it as its primary email.
    const given = await call(h.app(), `/contacts/${learned[0]!.id}`, { method: 'PUT', key: p.key, body: { emails: [{ address: 'Frank@Partner.example' }] } });
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    expect(given.body.contact).toMatchObject({ email: 'frank@partner.example', emails: [{ address: 'frank@partner.example', primary: true }] });
    const [row] = await h.db().select().from(contacts).where(eq(contacts.id, learned[0]!.id));
    expect(row!.phones).toEqual([expect.objectContaining({ number: caller })]);
  });
});
