import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { calendarEvents, calendarPushChannels } from '@/db/schema';
import { setHostedDomain } from '@/server/hosted/accounts';
import { syncConnection } from '@/server/calendars/sync';
import { connectCalendars } from '../helpers/calendar-oauth';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import type { GraphCalendarFake } from '../helpers/graph-calendar-fake';
import type { GraphFake } from '../helpers/graph-fake';
import { hostedCaller } from '../helpers/hosted-caller';
import { usePushWorld } from './push-world';

/**
 * Provider push stops with the change that ends it (issue 43): a calendar the user no longer reads
 * (the hosted page's choice) loses its Google watch channel or Graph subscription at once, and a
 * disconnected connection every one of its channels: the row is gone with the change, the
 * provider is told after it (channels/stop with the channel's id and resource id; DELETE
 * /subscriptions/{id}), and a notification for that channel arriving later (late, replayed, or
 * because the provider refused to stop it) is refused and syncs nothing. A pushed sync asked for
 * before the calendar was deselected reads nothing either. Choosing the calendar again makes its
 * channel at the next periodic sync, as every channel is made. The same choice written through
 * PATCH /profile or the settings page's updateProfile stops the same channels the same way.
 */
const PUBLIC = 'https://steward-push-stop.test';
const world = usePushWorld(PUBLIC);
const { app, until, db, providers, inHours, httpsFromNow, httpAgain } = world;
let mail: GraphFake;
let graph: GraphCalendarFake;
beforeAll(() => {
  mail = world.mail();
  graph = world.graph();
});

const settle = () => new Promise((r) => setTimeout(r, 1_500));
let n = 0;

/** A user of a hosted account: their key and the hosted page's procedures. */
async function person() {
  const account = await newAccount(app(), 'Push stop');
  const host = `push-stop-${Date.now().toString(36)}-${++n}.steward.test`;
  await setHostedDomain(db(), account.accountId, host);
  const user = await newUser(app(), account);
  return { key: await userKey(app(), account, user.id), api: await hostedCaller(app(), host, user.id) };
}

const pushRows = async (connectionId: string) => (await db().select().from(calendarPushChannels).where(eq(calendarPushChannels.connectionId, connectionId))).map((r) => [r.calendarId, r.channelId]).sort();
const storedTitles = async (calendarId: string) => (await db().select().from(calendarEvents).where(eq(calendarEvents.calendarId, calendarId))).map((e) => e.title).sort();

async function googleUser() {
  const p = await person();
  const address = `stop${++n}.${Date.now().toString(36)}@gmail.test`;
  const team = `team${n}.${Date.now().toString(36)}@group.calendar.google.test`;
  providers.gmail.addMailbox(address);
  providers.gcal.addUser(address);
  providers.gcal.addCalendar(address, { id: team, summary: 'Team' });
  providers.gcal.addEvent(address, team, { summary: 'Planning', start: { dateTime: inHours(24).toISOString() }, end: { dateTime: inHours(25).toISOString() } });
  providers.gmail.oauth.consentAs = address;
  const { connection } = await connectCalendars(app(), p.key, 'google');
  const local = (remote: string) => connection.calendars.find((c) => (remote === address ? c.primary : c.name === 'Team'))!;
  httpsFromNow();
  expect((await syncConnection(db(), connection.id)).ok).toBe(true);
  const channelOf = (remote: string) => providers.gcal.channels().find((c) => c.user === address && c.calendarId === remote);
  const lists = (remote: string) => providers.gcal.calls.filter((c) => c.method === 'GET' && decodeURIComponent(c.path).startsWith(`/calendar/v3/calendars/${remote}/events?`)).length;
  /** An `exists` notification on the calendar's channel, answered and its sync done: kept to be replayed. */
  async function notified(remote: string) {
    const before = lists(remote);
    expect(await providers.gcal.notify(channelOf(remote)!.id)).toBe(200);
    const sent = providers.gcal.pushes.at(-1)!;
    expect(sent.headers).toMatchObject({ 'X-Goog-Channel-ID': channelOf(remote)!.id, 'X-Goog-Resource-State': 'exists' });
    await until(async () => lists(remote) > before, 20_000);
    await settle();
    return sent;
  }
  await providers.gcal.pushesSettled();
  return { ...p, address, team, connection, primaryId: local(address).id, teamId: local(team).id, channelOf, lists, notified };
}

describe('Google watch channels', () => {
  it('deselecting a calendar stops its channel at once; a notification replayed afterwards, or a pushed sync already asked for, syncs nothing; choosing it again watches it at the next sync', async () => {
    const u = await googleUser();
    try {
      const teamChannel = u.channelOf(u.team)!;
      const primaryChannel = u.channelOf(u.address)!;
      expect(teamChannel).toBeDefined();
      expect(primaryChannel).toBeDefined();
      expect(await pushRows(u.connection.id)).toEqual([[u.primaryId, primaryChannel.id], [u.teamId, teamChannel.id]].sort());
      const captured = await u.notified(u.team);

      await u.api.calendar.choose({ calendarIds: [u.primaryId] });
      // Stopped at Google with the channel's id and resource id; the primary calendar's channel untouched.
      expect(providers.gcal.stops.filter((s) => s.id === teamChannel.id)).toEqual([{ id: teamChannel.id, resourceId: teamChannel.resourceId, status: 204 }]);
      expect(providers.gcal.stops.some((s) => s.id === primaryChannel.id)).toBe(false);
      expect(u.channelOf(u.team)).toBeUndefined();
      expect(await pushRows(u.connection.id)).toEqual([[u.primaryId, primaryChannel.id]]);

      // Someone adds an event to Team; the notification that was in flight arrives late.
      providers.gcal.addEvent(u.address, u.team, { summary: 'Offsite', start: { dateTime: inHours(30).toISOString() }, end: { dateTime: inHours(31).toISOString() } });
      const before = u.lists(u.team);
      expect(await providers.gcal.replayPush(captured)).toBe(403);
      await settle();
      expect(u.lists(u.team)).toBe(before);
      expect(await storedTitles(u.teamId)).toEqual(['Planning']);

      // A pushed sync the engine was asked for before the choice reads nothing of Team.
      const pushed = await syncConnection(db(), u.connection.id, { calendarId: u.teamId });
      expect(pushed).toMatchObject({ ok: true, calendars: 0, changed: 0 });
      expect(u.lists(u.team)).toBe(before);
      expect(await storedTitles(u.teamId)).toEqual(['Planning']);

      // Chosen again: watched again by the next periodic sync (not by the choice itself).
      await u.api.calendar.choose({ calendarIds: [u.primaryId, u.teamId] });
      expect(u.channelOf(u.team)).toBeUndefined();
      expect((await syncConnection(db(), u.connection.id)).ok).toBe(true);
      expect(u.channelOf(u.team)).toBeDefined();
      expect((await pushRows(u.connection.id)).map(([calendarId]) => calendarId)).toEqual([u.primaryId, u.teamId].sort());
    } finally {
      httpAgain();
    }
  });

  it('PATCH /profile naming the calendars read stops the others\' channels at once, as the hosted page\'s choice does; every calendar (the empty list) or another preference drops nothing', async () => {
    const u = await googleUser();
    try {
      const teamChannel = u.channelOf(u.team)!;
      const primaryChannel = u.channelOf(u.address)!;
      const captured = await u.notified(u.team);

      const other = await call(app(), '/profile', { method: 'PATCH', key: u.key, body: { preferences: { checkInAfter: 2 } } });
      expect(other.status).toBe(200);
      const every = await call(app(), '/profile', { method: 'PATCH', key: u.key, body: { preferences: { calendars: { read: [] } } } });
      expect(every.status).toBe(200);
      expect(providers.gcal.stops.some((s) => s.id === teamChannel.id || s.id === primaryChannel.id)).toBe(false);
      expect(await pushRows(u.connection.id)).toEqual([[u.primaryId, primaryChannel.id], [u.teamId, teamChannel.id]].sort());

      const saved = await call(app(), '/profile', { method: 'PATCH', key: u.key, body: { preferences: { calendars: { read: [u.primaryId] } } } });
      expect(saved.status).toBe(200);
      expect(saved.body.user.preferences.calendars.read).toEqual([u.primaryId]);
      // Gone with the write, stopped at Google once, before the answer; the primary calendar's channel untouched.
      expect(await pushRows(u.connection.id)).toEqual([[u.primaryId, primaryChannel.id]]);
      expect(providers.gcal.stops.filter((s) => s.id === teamChannel.id)).toEqual([{ id: teamChannel.id, resourceId: teamChannel.resourceId, status: 204 }]);
      expect(providers.gcal.stops.some((s) => s.id === primaryChannel.id)).toBe(false);
      expect(u.channelOf(u.team)).toBeUndefined();

      // Written again the same: nothing more to drop or stop.
      expect((await call(app(), '/profile', { method: 'PATCH', key: u.key, body: { preferences: { calendars: { read: [u.primaryId] } } } })).status).toBe(200);
      expect(providers.gcal.stops.filter((s) => s.id === teamChannel.id)).toHaveLength(1);

      providers.gcal.addEvent(u.address, u.team, { summary: 'Offsite', start: { dateTime: inHours(30).toISOString() }, end: { dateTime: inHours(31).toISOString() } });
      const before = u.lists(u.team);
      expect(await providers.gcal.replayPush(captured)).toBe(403);
      await settle();
      expect(u.lists(u.team)).toBe(before);
      expect(await storedTitles(u.teamId)).toEqual(['Planning']);
    } finally {
      httpAgain();
    }
  });

  it('a stop Google refuses is logged and the row is gone anyway: its notifications are refused and sync nothing', async () => {
    const u = await googleUser();
    try {
      const teamChannel = u.channelOf(u.team)!;
      providers.gcal.refuseStop({ status: 503, reason: 'backendError', message: 'Backend Error' });
      try {
        await u.api.calendar.choose({ calendarIds: [u.primaryId] });
      } finally {
        providers.gcal.refuseStop(null);
      }
      expect(providers.gcal.stops.filter((s) => s.id === teamChannel.id)).toEqual([{ id: teamChannel.id, resourceId: teamChannel.resourceId, status: 503 }]);
      // Google still has the channel and goes on notifying; Steward no longer knows it.
      expect(u.channelOf(u.team)?.id).toBe(teamChannel.id);
      expect((await pushRows(u.connection.id)).map(([calendarId]) => calendarId)).toEqual([u.primaryId]);
      providers.gcal.addEvent(u.address, u.team, { summary: 'Offsite', start: { dateTime: inHours(30).toISOString() }, end: { dateTime: inHours(31).toISOString() } });
      const before = u.lists(u.team);
      expect(await providers.gcal.notify(teamChannel.id)).toBe(403);
      await settle();
      expect(u.lists(u.team)).toBe(before);
      expect(await storedTitles(u.teamId)).toEqual(['Planning']);
    } finally {
      httpAgain();
    }
  });

  it('disconnecting stops every channel of the connection after the commit (the grant gone with it); a notification replayed afterwards is refused', async () => {
    const u = await googleUser();
    try {
      const channels = [u.channelOf(u.address)!, u.channelOf(u.team)!];
      const captured = await u.notified(u.address);
      const callsBefore = providers.gcal.calls.length;

      expect((await call(app(), `/calendar-connections/${u.connection.id}`, { key: u.key, method: 'DELETE' })).status).toBe(200);
      for (const c of channels) expect(providers.gcal.stops.filter((s) => s.id === c.id)).toEqual([{ id: c.id, resourceId: c.resourceId, status: 204 }]);
      expect(providers.gcal.channels().filter((c) => c.user === u.address)).toEqual([]);
      expect(await pushRows(u.connection.id)).toEqual([]);

      expect(await providers.gcal.replayPush(captured)).toBe(403);
      await settle();
      // Nothing asked of Google for this user since but the two stops.
      const since = providers.gcal.calls.slice(callsBefore).filter((c) => c.user === u.address);
      expect(since.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /calendar/v3/channels/stop', 'POST /calendar/v3/channels/stop']);
    } finally {
      httpAgain();
    }
  });
});

describe('Microsoft Graph subscriptions', () => {
  it('deselecting a calendar deletes its subscription at once and disconnecting the others; replayed notifications sync nothing', async () => {
    const p = await person();
    const address = `stop${++n}.${Date.now().toString(36)}@contoso.test`;
    mail.addMailbox(address);
    graph.addUser(address);
    const team = graph.addCalendar(address, { name: 'Team' });
    const main = graph.defaultCalendarId(address);
    const planning = graph.addEvent(address, team, { subject: 'Planning', start: inHours(24), end: inHours(25) });
    mail.oauth.consentAs = address;
    const { connection } = await connectCalendars(app(), p.key, 'microsoft');
    const mainId = connection.calendars.find((c) => c.primary)!.id;
    const teamId = connection.calendars.find((c) => c.name === 'Team')!.id;
    const subOf = (remote: string) => graph.subscriptions().find((s) => s.user === address && s.calendarId === remote);
    const deltas = (remote: string) => graph.calls.filter((c) => c.method === 'GET' && c.path.includes(`/calendars/${remote}/calendarView/delta`)).length;
    async function notified(remote: string, eventId: string) {
      const before = deltas(remote);
      expect(await graph.notify(subOf(remote)!.id, eventId)).toBe(202);
      const sent = graph.pushes.at(-1)!;
      expect(sent.body).toContain(subOf(remote)!.id);
      await until(async () => deltas(remote) > before, 20_000);
      await settle();
      return sent;
    }
    try {
      httpsFromNow();
      expect((await syncConnection(db(), connection.id)).ok).toBe(true);
      const teamSub = subOf(team)!;
      const mainSub = subOf(main)!;
      expect(teamSub).toBeDefined();
      expect(mainSub).toBeDefined();
      const teamNote = await notified(team, planning.id);
      const mainNote = await notified(main, planning.id);

      await p.api.calendar.choose({ calendarIds: [mainId] });
      expect(graph.subscriptionDeletions.filter((d) => d.id === teamSub.id)).toEqual([{ id: teamSub.id, status: 204 }]);
      expect(graph.subscriptionDeletions.some((d) => d.id === mainSub.id)).toBe(false);
      expect(subOf(team)).toBeUndefined();
      expect(await pushRows(connection.id)).toEqual([[mainId, mainSub.id]]);

      graph.addEvent(address, team, { subject: 'Offsite', start: inHours(30), end: inHours(31) });
      const before = deltas(team);
      expect(await graph.replayPush(teamNote)).toBe(403);
      await settle();
      expect(deltas(team)).toBe(before);
      expect(await storedTitles(teamId)).toEqual(['Planning']);

      expect((await call(app(), `/calendar-connections/${connection.id}`, { key: p.key, method: 'DELETE' })).status).toBe(200);
      expect(graph.subscriptionDeletions.filter((d) => d.id === mainSub.id)).toEqual([{ id: mainSub.id, status: 204 }]);
      expect(graph.subscriptions().filter((s) => s.user === address)).toEqual([]);
      expect(await pushRows(connection.id)).toEqual([]);
      const mainBefore = deltas(main);
      expect(await graph.replayPush(mainNote)).toBe(403);
      await settle();
      expect(deltas(main)).toBe(mainBefore);
    } finally {
      httpAgain();
    }
  });

  it('the settings page\'s updateProfile naming the calendars read deletes the others\' subscriptions at once', async () => {
    const p = await person();
    const address = `stop${++n}.${Date.now().toString(36)}@contoso.test`;
    mail.addMailbox(address);
    graph.addUser(address);
    const team = graph.addCalendar(address, { name: 'Team' });
    const main = graph.defaultCalendarId(address);
    mail.oauth.consentAs = address;
    const { connection } = await connectCalendars(app(), p.key, 'microsoft');
    const mainId = connection.calendars.find((c) => c.primary)!.id;
    const subOf = (remote: string) => graph.subscriptions().find((s) => s.user === address && s.calendarId === remote);
    try {
      httpsFromNow();
      expect((await syncConnection(db(), connection.id)).ok).toBe(true);
      const teamSub = subOf(team)!;
      const mainSub = subOf(main)!;
      expect(teamSub).toBeDefined();
      expect(mainSub).toBeDefined();

      const saved = await p.api.settings.updateProfile({ preferences: { calendars: { read: [mainId] } } });
      expect(saved.user.preferences.calendars.read).toEqual([mainId]);
      expect(await pushRows(connection.id)).toEqual([[mainId, mainSub.id]]);
      expect(graph.subscriptionDeletions.filter((d) => d.id === teamSub.id)).toEqual([{ id: teamSub.id, status: 204 }]);
      expect(graph.subscriptionDeletions.some((d) => d.id === mainSub.id)).toBe(false);
      expect(subOf(team)).toBeUndefined();
      expect(subOf(main)?.id).toBe(mainSub.id);
    } finally {
      httpAgain();
    }
  });
});
