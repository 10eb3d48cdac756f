import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { calendarPushChannels, workflowFirings } from '@/db/schema';
import { syncConnection } from '@/server/calendars/sync';
import { connectCalendars } from '../helpers/calendar-oauth';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import type { GraphCalendarFake } from '../helpers/graph-calendar-fake';
import type { GraphFake } from '../helpers/graph-fake';
import { usePushWorld } from './push-world';

/**
 * Provider push (issue 43): when the deployment's public URL is https, the periodic sync gives
 * each calendar read a Google watch channel or a Graph subscription (the Graph validation
 * handshake answered), and a change someone else makes at the provider is pushed to
 * POST /api/calendars/push/{google,microsoft}, which starts that calendar's sync through the
 * engine: the local copy moves and event.scheduled fires without waiting for the timer. A wrong
 * token or clientState is refused and syncs nothing; a refused watch leaves polling; disconnecting
 * stops the channels. The stand-ins post to the public https origin, routed to the test server as
 * the deployment's TLS proxy would.
 */
const PUBLIC = 'https://steward-push.test';
const world = usePushWorld(PUBLIC);
const { app, until, db, providers, inHours, httpsFromNow, httpAgain } = world;
let mail: GraphFake;
let graph: GraphCalendarFake;
beforeAll(() => {
  mail = world.mail();
  graph = world.graph();
});

let n = 0;

async function userWithWorkflow() {
  const account = await newAccount(app());
  const user = await newUser(app(), account);
  const key = await userKey(app(), account, user.id);
  expect((await call(app(), `/users/${user.id}/assistants`, { key, body: { name: 'Ada' } })).status).toBeLessThan(300);
  const r = await call(app(), '/skills', { key, body: { kind: 'workflow', name: `push-${++n}`, title: 'Scheduled', description: 'Prepare', instructions: 'Prepare.', triggers: [{ on: 'webhook', event: 'event.scheduled' }] } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const skillId = r.body.skill.id as string;
  const firings = () => db().select().from(workflowFirings).where(eq(workflowFirings.skillId, skillId));
  return { key, user, firings };
}

const readEvents = async (key: string) => {
  const q = `from=${encodeURIComponent(inHours(0).toISOString())}&to=${encodeURIComponent(inHours(96).toISOString())}`;
  return (await call(app(), `/calendar/events?${q}`, { key })).body.events as Array<{ title: string; start: string }>;
};

describe('Google watch channels', () => {
  it('a refused watch leaves polling; then a channel per calendar read, an event moved elsewhere is pushed and synced at once, forged notifications sync nothing, disconnecting stops it', async () => {
    const { key, firings } = await userWithWorkflow();
    const address = `push${++n}.${Date.now().toString(36)}@gmail.test`;
    providers.gmail.addMailbox(address);
    providers.gcal.addUser(address);
    providers.gmail.oauth.consentAs = address;
    const standup = providers.gcal.addEvent(address, address, { summary: 'Standup', start: { dateTime: inHours(24).toISOString() }, end: { dateTime: inHours(25).toISOString() } });
    const { connection } = await connectCalendars(app(), key, 'google');
    try {
      // Over http, no channel is asked for.
      expect((await syncConnection(db(), connection.id)).ok).toBe(true);
      expect(providers.gcal.channels()).toEqual([]);

      httpsFromNow();
      providers.gcal.refuseWatch({ status: 403, reason: 'push.webhookUrlUnauthorized', message: 'Unauthorized WebHook callback channel' });
      expect((await syncConnection(db(), connection.id)).ok).toBe(true);
      expect(await db().select().from(calendarPushChannels).where(eq(calendarPushChannels.connectionId, connection.id))).toEqual([]);

      providers.gcal.refuseWatch(null);
      expect((await syncConnection(db(), connection.id)).ok).toBe(true);
      const [channel] = providers.gcal.channels();
      expect(channel).toMatchObject({ address: `${PUBLIC}/api/calendars/push/google`, calendarId: address });
      expect(channel.token?.length).toBeGreaterThanOrEqual(32);
      const [row] = await db().select().from(calendarPushChannels).where(eq(calendarPushChannels.connectionId, connection.id));
      expect(row).toMatchObject({ channelId: channel.id, resourceId: channel.resourceId, provider: 'google' });
      // Only a hash of the token is kept.
      expect(JSON.stringify(row)).not.toContain(channel.token!);
      await providers.gcal.pushesSettled();
      expect(providers.gcal.pushes.at(-1)).toMatchObject({ status: 200, headers: expect.objectContaining({ 'X-Goog-Resource-State': 'sync' }) });

      // Someone moves the standup in Google's own app: Google pushes, the engine syncs that calendar.
      const syncedBefore = firings;
      providers.gcal.changeEvent(address, address, standup.id, { start: { dateTime: inHours(27).toISOString() }, end: { dateTime: inHours(28).toISOString() } });
      const fired = await until(async () => ((await syncedBefore()).length ? await syncedBefore() : null), 20_000);
      expect(fired.map((f) => [f.payload.title, f.payload.start])).toEqual([['Standup', inHours(27).toISOString()]]);
      expect((await readEvents(key)).map((e) => [e.title, e.start])).toEqual([['Standup', inHours(27).toISOString()]]);
      expect(providers.gcal.pushes.at(-1)).toMatchObject({ status: 200, headers: expect.objectContaining({ 'X-Goog-Resource-State': 'exists' }) });

      // A forged notification (wrong token, or none) is refused and syncs nothing.
      const lists = () => providers.gcal.calls.filter((c) => c.method === 'GET' && c.path.includes('/events?')).length;
      await until(async () => ((await db().select().from(calendarPushChannels).where(eq(calendarPushChannels.id, row.id)))[0].pendingSince === null ? true : null), 10_000);
      const before = lists();
      expect(await providers.gcal.notify(channel.id, { token: 'not-the-token' })).toBe(403);
      expect(await providers.gcal.notify(channel.id, { token: null })).toBe(403);
      const res = await fetch(`${app().baseUrl}/calendars/push/google`, { method: 'POST', headers: { 'X-Goog-Channel-ID': 'unknown-channel', 'X-Goog-Channel-Token': channel.token!, 'X-Goog-Resource-State': 'exists' } });
      expect(res.status).toBe(403);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(lists()).toBe(before);

      // Many notifications at once: one sync (or very few), never one each.
      await Promise.all(Array.from({ length: 6 }, () => providers.gcal.notify(channel.id)));
      await until(async () => (lists() > before ? true : null), 20_000);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(lists() - before).toBeLessThan(6);

      // Disconnected: the channel is stopped at Google.
      expect((await call(app(), `/calendar-connections/${connection.id}`, { key, method: 'DELETE' })).status).toBe(200);
      expect(providers.gcal.channels()).toEqual([]);
      expect(providers.gcal.calls.some((c) => c.method === 'POST' && c.path === '/calendar/v3/channels/stop')).toBe(true);
    } finally {
      httpAgain();
    }
  });
});

describe('Microsoft Graph subscriptions', () => {
  it('answers the validation handshake, syncs a pushed change at once, refuses a wrong clientState, and deletes the subscription on disconnect', async () => {
    const { key, firings } = await userWithWorkflow();
    const address = `push${++n}.${Date.now().toString(36)}@contoso.test`;
    mail.addMailbox(address);
    graph.addUser(address);
    mail.oauth.consentAs = address;
    const calendarId = graph.defaultCalendarId(address);
    const review = graph.addEvent(address, null, { subject: 'Review', start: inHours(30), end: inHours(31) });
    const { connection } = await connectCalendars(app(), key, 'microsoft');
    try {
      httpsFromNow();
      expect((await syncConnection(db(), connection.id)).ok).toBe(true);
      const [sub] = graph.subscriptions();
      expect(sub).toMatchObject({ resource: `me/calendars/${calendarId}/events`, changeType: 'created,updated,deleted', notificationUrl: `${PUBLIC}/api/calendars/push/microsoft` });
      expect(graph.validations.at(-1)).toMatchObject({ status: 200, contentType: expect.stringMatching(/^text\/plain/) });
      expect(graph.validations.at(-1)!.echoed).toMatch(/^Validation: /);
      expect(Date.parse(sub.expirationDateTime) - Date.now()).toBeLessThanOrEqual(4230 * 60_000);

      graph.changeEvent(address, review.id, { start: inHours(32), end: inHours(33) });
      const fired = await until(async () => ((await firings()).length ? await firings() : null), 20_000);
      expect(fired.map((f) => [f.payload.title, f.payload.start])).toEqual([['Review', inHours(32).toISOString()]]);
      expect((await readEvents(key)).map((e) => [e.title, e.start])).toEqual([['Review', inHours(32).toISOString()]]);
      await graph.pushesSettled();
      expect(graph.pushes.at(-1)).toMatchObject({ status: 202 });

      expect(await graph.notify(sub.id, review.id, { clientState: 'forged' })).toBe(403);
      const bad = await fetch(`${app().baseUrl}/calendars/push/microsoft`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"value":[]}' });
      expect(bad.status).toBe(400);

      expect((await call(app(), `/calendar-connections/${connection.id}`, { key, method: 'DELETE' })).status).toBe(200);
      expect(graph.subscriptions()).toEqual([]);
    } finally {
      httpAgain();
    }
  });
});
