import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeOAuth, readBody, sendJson } from '../mailboxes/support/fake-oauth';
import { pushPoster } from './calendar-push-fake';
import { generatedInstance, instanceIdOf, originalStartOf, parseInstanceId } from './google-calendar-fake-instances';

/*
 * A loopback stand-in for the Google Calendar API v3, speaking its documented wire format:
 * calendarList.list, events.list (full sync, then incremental with syncToken; pageToken pages;
 * nextSyncToken only on the last page; deleted events as `status: cancelled` in an incremental
 * list; 410 `fullSyncRequired` for a token it no longer honours; 400 for a sync token combined
 * with a time restriction), events.get, events.insert (a client-chosen id is honoured once: 409
 * `duplicate` after), events.patch and events.delete (If-Match: 412 `conditionNotMet` on a stale
 * etag; `sendUpdates` recorded), and freeBusy.query. Bearer tokens are checked against the OAuth
 * stand-in (its own, or the Gmail stand-in's so one grant serves mail and calendar) and must carry
 * the calendar scope. A test can change events "as someone else" (the way another attendee or the
 * user in Google's own app would); every API call and every write Steward made is recorded.
 * Recurring masters are kept as written (`recurrence` lines): events.list is asked for them
 * unexpanded, which is what a sync wants; `singleEvents=true` is refused rather than answered wrong.
 * One instance of a series is read with events.instances and `originalStart`, and changed or
 * deleted by its instance id (an exception is then stored: ./google-calendar-fake-instances.ts).
 * Push: events.watch makes a channel (an https address only; a unique id), which gets its `sync`
 * message at once and an `exists` message after every change to the calendar's events, with the
 * channel's id, token and resource id in X-Goog-* headers; channels.stop ends it (each stop is
 * recorded; `refuseStop` makes it fail and the channel go on notifying).
 */

export const GOOGLE_CALENDAR_SCOPE = 'https://www.googleapis.com/auth/calendar';

type DateField = { dateTime?: string; date?: string; timeZone?: string };
export type GoogleEvent = {
  kind: 'calendar#event';
  id: string;
  etag: string;
  status: 'confirmed' | 'tentative' | 'cancelled';
  iCalUID: string;
  sequence: number;
  created: string;
  updated: string;
  summary?: string;
  description?: string;
  location?: string;
  start: DateField;
  end: DateField;
  recurrence?: string[];
  recurringEventId?: string;
  originalStartTime?: DateField;
  transparency?: 'opaque' | 'transparent';
  organizer: { email: string; displayName?: string; self?: boolean };
  creator: { email: string };
  attendees?: Array<{ email: string; displayName?: string; responseStatus: string; organizer?: boolean; self?: boolean }>;
  htmlLink: string;
  [k: string]: unknown;
};
type Stored = { event: GoogleEvent; seq: number };
type Calendar = { id: string; summary: string; backgroundColor: string; accessRole: 'owner' | 'writer' | 'reader' | 'freeBusyReader'; primary: boolean; timeZone: string; events: Map<string, Stored>; tokenFloor: number };

export type GoogleCalendarCall = { method: string; path: string; authorization: string | null; ifMatch: string | null; user: string | null };
export type GoogleCalendarWrite = { method: 'POST' | 'PATCH' | 'DELETE'; user: string; calendarId: string; eventId: string; sendUpdates: string | null; ifMatch: string | null; body: Record<string, unknown> | null; status: number };

export type GoogleCalendarFake = Awaited<ReturnType<typeof startGoogleCalendarFake>>;

const googleError = (res: http.ServerResponse, code: number, reason: string, message: string) =>
  sendJson(res, code, { error: { errors: [{ domain: 'global', reason, message }], code, message } });

/** Google's event ids: base32hex characters (a-v, 0-9), 5 to 1024 of them. */
const VALID_ID = /^[a-v0-9]{5,1024}$/;
const newId = () =>
  Array.from(randomBytes(20))
    .map((b) => '0123456789abcdefghijklmnopqrstuv'[b % 32])
    .join('');

const instant = (d: DateField | undefined): number | null => {
  if (!d) return null;
  if (d.dateTime) return Date.parse(d.dateTime);
  if (d.date) return Date.parse(`${d.date}T00:00:00Z`);
  return null;
};

export async function startGoogleCalendarFake(opts: { oauth?: FakeOAuth; clientId?: string; clientSecret?: string; pageSize?: number } = {}) {
  const users = new Map<string, Map<string, Calendar>>();
  const calls: GoogleCalendarCall[] = [];
  const writes: GoogleCalendarWrite[] = [];
  const ownOAuth = !opts.oauth;
  const oauth =
    opts.oauth ??
    new FakeOAuth(opts.clientId ?? 'google-client', opts.clientSecret ?? 'google-secret', {
      rotateRefresh: false,
      expiresIn: 3599,
      defaultUser: () => [...users.keys()][0] ?? null,
    });
  const defaultPageSize = opts.pageSize ?? 250;
  let seq = 100;
  let base = '';
  type Channel = { id: string; resourceId: string; user: string; calendarId: string; address: string; token: string | null; expiration: number; messages: number };
  const channels = new Map<string, Channel>();
  const push = pushPoster();
  let watchRefusal: { status: number; reason: string; message: string } | null = null;
  let stopRefusal: { status: number; reason: string; message: string } | null = null;
  /** Every channels.stop asked for, with the id and resource id it named and the status answered. */
  const stops: Array<{ id: string | null; resourceId: string | null; status: number }> = [];

  function message(c: Channel, state: 'sync' | 'exists', o: { token?: string | null } = {}) {
    const token = o.token !== undefined ? o.token : c.token;
    const headers: Record<string, string> = {
      'X-Goog-Channel-ID': c.id,
      'X-Goog-Message-Number': String(++c.messages),
      'X-Goog-Resource-ID': c.resourceId,
      'X-Goog-Resource-State': state,
      'X-Goog-Resource-URI': `${base}/calendar/v3/calendars/${encodeURIComponent(c.calendarId)}/events?alt=json`,
      'X-Goog-Channel-Expiration': new Date(c.expiration).toUTCString(),
      ...(token ? { 'X-Goog-Channel-Token': token } : {}),
    };
    return headers;
  }
  /** After a change to a calendar's events: every channel on it is told (as Google does, after its own answer). */
  function changed(user: string, calendarId: string) {
    for (const c of channels.values()) if (c.user === user && c.calendarId === calendarId && c.expiration > Date.now()) push.later(c.address, message(c, 'exists'), null);
  }

  const token = (n: number) => `CPDAlv${Buffer.from(`st:${n}`).toString('base64url')}`;
  const tokenSeq = (t: string) => {
    const m = /^CPDAlv(.+)$/.exec(t);
    const v = m ? /^st:(\d+)$/.exec(Buffer.from(m[1], 'base64url').toString('utf8')) : null;
    return v ? Number(v[1]) : null;
  };
  const pageToken = (offset: number, limit: number) => Buffer.from(JSON.stringify({ offset, limit })).toString('base64url');

  function calendarOf(user: string, id: string): Calendar | undefined {
    const cals = users.get(user);
    if (!cals) return undefined;
    return id === 'primary' ? [...cals.values()].find((c) => c.primary) : cals.get(id);
  }

  function stamp(cal: Calendar, e: GoogleEvent) {
    const n = ++seq;
    e.etag = `"${3_400_000_000_000 + n}"`;
    e.updated = new Date().toISOString();
    cal.events.set(e.id, { event: e, seq: n });
    for (const [user, cals] of users) if (cals.get(cal.id) === cal) changed(user, cal.id);
  }

  function build(user: string, cal: Calendar, body: Record<string, unknown>, id: string, organizer: string): GoogleEvent {
    const now = new Date().toISOString();
    const attendees = Array.isArray(body.attendees)
      ? (body.attendees as Array<{ email: string; displayName?: string; responseStatus?: string }>).map((a) => ({
          email: a.email,
          ...(a.displayName ? { displayName: a.displayName } : {}),
          responseStatus: a.responseStatus ?? (a.email === organizer ? 'accepted' : 'needsAction'),
          ...(a.email === organizer ? { organizer: true } : {}),
          ...(a.email === user ? { self: true } : {}),
        }))
      : undefined;
    return {
      ...(body as Partial<GoogleEvent>),
      kind: 'calendar#event',
      id,
      etag: '',
      status: (body.status as GoogleEvent['status']) ?? 'confirmed',
      iCalUID: (body.iCalUID as string) ?? `${id}@google.com`,
      sequence: 0,
      created: now,
      updated: now,
      start: body.start as DateField,
      end: body.end as DateField,
      organizer: { email: organizer, ...(organizer === user ? { self: true } : {}) },
      creator: { email: organizer, ...(organizer === user ? { self: true } : {}) },
      ...(attendees ? { attendees } : {}),
      htmlLink: `https://www.google.com/calendar/event?eid=${Buffer.from(`${id} ${cal.id}`).toString('base64url')}`,
    } as GoogleEvent;
  }

  /** What Google checks of an event body before it stores it: a start and an end, each a date or a dateTime, the end not before the start. */
  function invalidTimes(body: Record<string, unknown>): string | null {
    const s = instant(body.start as DateField);
    const e = instant(body.end as DateField);
    if (s === null || Number.isNaN(s)) return 'Missing or invalid start time.';
    if (e === null || Number.isNaN(e)) return 'Missing or invalid end time.';
    if (e < s) return 'The specified time range is empty.';
    return null;
  }

  function list(res: http.ServerResponse, cal: Calendar, q: URLSearchParams) {
    if (q.get('singleEvents') === 'true') return googleError(res, 400, 'invalid', 'singleEvents=true is not answered by this stand-in');
    const sync = q.get('syncToken');
    const restricted = ['timeMin', 'timeMax', 'updatedMin', 'iCalUID', 'orderBy', 'q', 'privateExtendedProperty', 'sharedExtendedProperty'].filter((k) => q.has(k));
    if (sync !== null && restricted.length) return googleError(res, 400, 'invalid', 'Sync token cannot be used with other request restrictions.');
    let after = 0;
    if (sync !== null) {
      const n = tokenSeq(sync);
      if (n === null) return googleError(res, 400, 'invalid', 'Invalid sync token value.');
      if (n < cal.tokenFloor) return googleError(res, 410, 'fullSyncRequired', 'Sync token is no longer valid, a full sync is required.');
      after = n;
    }
    const showDeleted = sync !== null || q.get('showDeleted') === 'true';
    const timeMin = q.get('timeMin') ? Date.parse(q.get('timeMin')!) : null;
    const timeMax = q.get('timeMax') ? Date.parse(q.get('timeMax')!) : null;
    const matching = [...cal.events.values()]
      .filter((s) => s.seq > after)
      .filter((s) => showDeleted || s.event.status !== 'cancelled')
      .filter((s) => timeMin === null || s.event.recurrence || (instant(s.event.end) ?? 0) > timeMin)
      .filter((s) => timeMax === null || s.event.recurrence || (instant(s.event.start) ?? 0) < timeMax)
      .sort((a, b) => a.seq - b.seq);
    const page = q.get('pageToken') ? (JSON.parse(Buffer.from(q.get('pageToken')!, 'base64url').toString('utf8')) as { offset: number; limit: number }) : null;
    const limit = page?.limit ?? seq;
    const offset = page?.offset ?? 0;
    const size = Math.min(Number(q.get('maxResults') ?? defaultPageSize), 2500);
    const within = matching.filter((s) => s.seq <= limit);
    const items = within.slice(offset, offset + size).map((s) => s.event);
    const more = offset + size < within.length;
    return sendJson(res, 200, {
      kind: 'calendar#events',
      etag: `"p${limit}"`,
      summary: cal.summary,
      updated: new Date().toISOString(),
      timeZone: cal.timeZone,
      accessRole: cal.accessRole,
      defaultReminders: [],
      items,
      ...(more ? { nextPageToken: pageToken(offset + size, limit) } : { nextSyncToken: token(limit) }),
    });
  }

  function freeBusy(res: http.ServerResponse, user: string, body: { timeMin?: string; timeMax?: string; items?: Array<{ id: string }> }) {
    const from = Date.parse(body.timeMin ?? '');
    const to = Date.parse(body.timeMax ?? '');
    if (Number.isNaN(from) || Number.isNaN(to)) return googleError(res, 400, 'badRequest', 'Bad Request');
    const calendars: Record<string, unknown> = {};
    for (const { id } of body.items ?? []) {
      const cal = calendarOf(user, id);
      if (!cal) {
        calendars[id] = { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] };
        continue;
      }
      const busy = [...cal.events.values()]
        .map((s) => s.event)
        .filter((e) => e.status !== 'cancelled' && e.transparency !== 'transparent' && !e.recurrence)
        .map((e) => ({ s: instant(e.start)!, e: instant(e.end)! }))
        .filter((i) => i.e > from && i.s < to)
        .sort((a, b) => a.s - b.s)
        .map((i) => ({ start: new Date(Math.max(i.s, from)).toISOString(), end: new Date(Math.min(i.e, to)).toISOString() }));
      calendars[id] = { busy };
    }
    return sendJson(res, 200, { kind: 'calendar#freeBusy', timeMin: new Date(from).toISOString(), timeMax: new Date(to).toISOString(), calendars });
  }

  async function api(req: http.IncomingMessage, res: http.ServerResponse, url: URL, user: string) {
    const path = url.pathname.replace(/^\/calendar\/v3/, '');
    const q = url.searchParams;
    const ifMatch = (req.headers['if-match'] as string | undefined) ?? null;
    if (req.method === 'GET' && path === '/users/me/calendarList') {
      const items = [...users.get(user)!.values()].map((c) => ({
        kind: 'calendar#calendarListEntry',
        etag: `"${c.id.length}"`,
        id: c.id,
        summary: c.summary,
        timeZone: c.timeZone,
        colorId: '14',
        backgroundColor: c.backgroundColor,
        foregroundColor: '#000000',
        selected: true,
        accessRole: c.accessRole,
        defaultReminders: [],
        ...(c.primary ? { primary: true } : {}),
      }));
      return sendJson(res, 200, { kind: 'calendar#calendarList', etag: '"cl"', nextSyncToken: token(seq), items });
    }
    if (req.method === 'POST' && path === '/channels/stop') {
      const body = JSON.parse((await readBody(req)).toString('utf8') || '{}') as { id?: string; resourceId?: string };
      const c = body.id ? channels.get(body.id) : undefined;
      const known = c !== undefined && c.resourceId === body.resourceId && c.user === user;
      stops.push({ id: body.id ?? null, resourceId: body.resourceId ?? null, status: stopRefusal?.status ?? (known ? 204 : 404) });
      if (stopRefusal) return googleError(res, stopRefusal.status, stopRefusal.reason, stopRefusal.message);
      if (!c || !known) return googleError(res, 404, 'notFound', `Channel '${body.id}' not found for project`);
      channels.delete(c.id);
      return res.writeHead(204).end();
    }
    const watch = /^\/calendars\/([^/]+)\/events\/watch$/.exec(path);
    if (watch && req.method === 'POST') {
      const c = calendarOf(user, decodeURIComponent(watch[1]));
      if (!c) return googleError(res, 404, 'notFound', 'Not Found');
      const body = JSON.parse((await readBody(req)).toString('utf8') || '{}') as { id?: string; type?: string; address?: string; token?: string; expiration?: string };
      if (watchRefusal) return googleError(res, watchRefusal.status, watchRefusal.reason, watchRefusal.message);
      if (!body.id || !/^[A-Za-z0-9\-_+/=]{1,64}$/.test(body.id)) return googleError(res, 400, 'invalid', 'Invalid channel id.');
      if (body.type !== 'web_hook') return googleError(res, 400, 'invalid', 'Invalid channel type.');
      if (!body.address?.startsWith('https://')) return googleError(res, 400, 'push.webhookUrlNotHttps', `WebHook callback must be HTTPS: ${body.address}`);
      if (channels.has(body.id)) return googleError(res, 400, 'channelIdNotUnique', 'Channel id not unique.');
      // Google keeps an events channel about a week at most.
      const expiration = Math.min(Number(body.expiration ?? Infinity) || Infinity, Date.now() + 7 * 86_400_000);
      const ch: Channel = { id: body.id, resourceId: newId(), user, calendarId: c.id, address: body.address, token: body.token ?? null, expiration, messages: 0 };
      channels.set(ch.id, ch);
      push.later(ch.address, message(ch, 'sync'), null);
      return sendJson(res, 200, { kind: 'api#channel', id: ch.id, resourceId: ch.resourceId, resourceUri: `${base}/calendar/v3/calendars/${encodeURIComponent(c.id)}/events?alt=json`, ...(ch.token ? { token: ch.token } : {}), expiration: String(expiration) });
    }
    if (req.method === 'POST' && path === '/freeBusy') return freeBusy(res, user, JSON.parse((await readBody(req)).toString('utf8') || '{}'));

    const inst = /^\/calendars\/([^/]+)\/events\/([^/]+)\/instances$/.exec(path);
    if (inst && req.method === 'GET') {
      const c = calendarOf(user, decodeURIComponent(inst[1]));
      const master = c?.events.get(decodeURIComponent(inst[2]))?.event;
      if (!c || !master || master.status === 'cancelled') return googleError(res, 404, 'notFound', 'Not Found');
      const at = originalStartOf(q.get('originalStart') ?? '');
      if (at === null) return googleError(res, 400, 'invalid', 'This stand-in answers events.instances only with originalStart.');
      const exception = c.events.get(instanceIdOf(master, at))?.event;
      const found = exception ?? generatedInstance(master, at);
      const items = found && (found.status !== 'cancelled' || q.get('showDeleted') === 'true') ? [found] : [];
      return sendJson(res, 200, { kind: 'calendar#events', summary: c.summary, timeZone: c.timeZone, accessRole: c.accessRole, items });
    }
    const m = /^\/calendars\/([^/]+)\/events(?:\/([^/]+))?$/.exec(path);
    if (!m) return googleError(res, 404, 'notFound', 'Not Found');
    const cal = calendarOf(user, decodeURIComponent(m[1]));
    if (!cal) return googleError(res, 404, 'notFound', 'Not Found');
    const eventId = m[2] ? decodeURIComponent(m[2]) : null;
    const write = (w: Omit<GoogleCalendarWrite, 'user' | 'calendarId' | 'sendUpdates' | 'ifMatch'>) =>
      writes.push({ ...w, user, calendarId: cal.id, sendUpdates: q.get('sendUpdates'), ifMatch });
    const canWrite = cal.accessRole === 'owner' || cal.accessRole === 'writer';

    if (req.method === 'GET' && !eventId) return list(res, cal, q);
    if (req.method === 'POST' && !eventId) {
      const body = JSON.parse((await readBody(req)).toString('utf8') || '{}') as Record<string, unknown>;
      if (!canWrite) return googleError(res, 403, 'requiredAccessLevel', 'You need to have writer access to this calendar.');
      const invalid = invalidTimes(body);
      if (invalid) return googleError(res, 400, 'invalid', invalid);
      const id = typeof body.id === 'string' ? body.id : newId();
      if (!VALID_ID.test(id)) return googleError(res, 400, 'invalid', 'Invalid resource id value.');
      if (cal.events.has(id)) {
        write({ method: 'POST', eventId: id, body, status: 409 });
        return googleError(res, 409, 'duplicate', 'The requested identifier already exists.');
      }
      const e = build(user, cal, body, id, user);
      stamp(cal, e);
      write({ method: 'POST', eventId: id, body, status: 200 });
      return sendJson(res, 200, e);
    }
    let stored = eventId ? cal.events.get(eventId) : undefined;
    // An instance of a series with no exception yet: a change or a deletion of it makes one.
    const instance = !stored && eventId ? parseInstanceId(eventId) : null;
    const generated = instance ? generatedInstance(cal.events.get(instance.eventId)?.event ?? ({} as GoogleEvent), instance.at) : null;
    if (generated && (req.method === 'PATCH' || req.method === 'DELETE' || req.method === 'GET')) stored = { event: generated, seq: 0 };
    if (!stored) return googleError(res, 404, 'notFound', 'Not Found');
    if (req.method === 'GET') return sendJson(res, 200, stored.event);
    if (req.method === 'PATCH' || req.method === 'DELETE') {
      const body = req.method === 'PATCH' ? (JSON.parse((await readBody(req)).toString('utf8') || '{}') as Record<string, unknown>) : null;
      if (!canWrite) return googleError(res, 403, 'requiredAccessLevel', 'You need to have writer access to this calendar.');
      if (ifMatch !== null && ifMatch !== stored.event.etag) {
        write({ method: req.method, eventId: stored.event.id, body, status: 412 });
        return googleError(res, 412, 'conditionNotMet', 'Precondition Failed');
      }
      if (stored.event.status === 'cancelled') {
        write({ method: req.method, eventId: stored.event.id, body, status: 410 });
        return googleError(res, 410, 'deleted', 'Resource has been deleted');
      }
      if (req.method === 'DELETE') {
        stamp(cal, { ...stored.event, status: 'cancelled', sequence: stored.event.sequence + 1 });
        write({ method: 'DELETE', eventId: stored.event.id, body: null, status: 204 });
        return res.writeHead(204).end();
      }
      const next = { ...stored.event, ...(body as Partial<GoogleEvent>), id: stored.event.id, iCalUID: stored.event.iCalUID, organizer: stored.event.organizer, creator: stored.event.creator } as GoogleEvent;
      const invalid = invalidTimes(next as unknown as Record<string, unknown>);
      if (invalid) return googleError(res, 400, 'invalid', invalid);
      if (body && 'attendees' in body) next.attendees = build(user, cal, { ...next, attendees: body.attendees }, next.id, next.organizer.email).attendees;
      if (body && ('start' in body || 'end' in body)) next.sequence = stored.event.sequence + 1;
      stamp(cal, next);
      write({ method: 'PATCH', eventId: next.id, body, status: 200 });
      return sendJson(res, 200, next);
    }
    return googleError(res, 405, 'methodNotAllowed', 'Method Not Allowed');
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://calendar.fake');
      if (ownOAuth && req.method === 'GET' && url.pathname === '/o/oauth2/v2/auth') {
        const r = oauth.authorize(url);
        return r.location ? res.writeHead(302, { Location: r.location }).end() : res.writeHead(r.status).end(r.body);
      }
      if (ownOAuth && req.method === 'POST' && url.pathname === '/token') {
        const r = oauth.token(new URLSearchParams((await readBody(req)).toString('utf8')));
        return sendJson(res, r.status, r.body);
      }
      if (url.pathname.startsWith('/calendar/v3/')) {
        const user = oauth.userOf(req.headers.authorization);
        calls.push({ method: req.method ?? 'GET', path: url.pathname + url.search, authorization: req.headers.authorization ?? null, ifMatch: (req.headers['if-match'] as string) ?? null, user });
        if (!user || !users.has(user)) return googleError(res, 401, 'authError', 'Request had invalid authentication credentials.');
        const scopes = (oauth.scopeOf(req.headers.authorization) ?? '').split(' ');
        if (!scopes.includes(GOOGLE_CALENDAR_SCOPE)) return googleError(res, 403, 'insufficientPermissions', 'Request had insufficient authentication scopes.');
        return api(req, res, url, user);
      }
      googleError(res, 404, 'notFound', 'Not Found');
    })().catch((e: unknown) => googleError(res, 500, 'backendError', String(e)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function stored(user: string, calendarId: string, eventId: string): { cal: Calendar; s: Stored } {
    const cal = calendarOf(user.toLowerCase(), calendarId);
    const s = cal?.events.get(eventId);
    if (!cal || !s) throw new Error(`google-calendar-fake: no event ${eventId} in ${calendarId} of ${user}`);
    return { cal, s };
  }

  return {
    base,
    oauth,
    calls,
    writes,
    /** The environment that points Steward at this stand-in (with its own OAuth endpoints unless it shares the Gmail stand-in's). */
    env: {
      STEWARD_GOOGLE_CALENDAR_API_URL: `${base}/calendar/v3`,
      ...(ownOAuth ? { GOOGLE_CLIENT_ID: oauth.clientId, GOOGLE_CLIENT_SECRET: oauth.clientSecret, STEWARD_GOOGLE_AUTH_URL: `${base}/o/oauth2/v2/auth`, STEWARD_GOOGLE_TOKEN_URL: `${base}/token` } : {}),
    },
    /** A Google account with its primary calendar (id: the address). */
    addUser(address: string, o: { timeZone?: string } = {}) {
      const user = address.toLowerCase();
      users.set(user, new Map([[user, { id: user, summary: user, backgroundColor: '#9fe1e7', accessRole: 'owner', primary: true, timeZone: o.timeZone ?? 'Europe/Paris', events: new Map(), tokenFloor: 0 }]]));
    },
    /** Another calendar in the account's list (shared with it, or one of its own). */
    addCalendar(address: string, c: { id: string; summary: string; accessRole?: Calendar['accessRole']; backgroundColor?: string; timeZone?: string }) {
      users.get(address.toLowerCase())!.set(c.id, { id: c.id, summary: c.summary, backgroundColor: c.backgroundColor ?? '#f83a22', accessRole: c.accessRole ?? 'owner', primary: false, timeZone: c.timeZone ?? 'UTC', events: new Map(), tokenFloor: 0 });
    },
    /** An event someone else put on the user's calendar (an invitation, or the user in Google's own app). */
    addEvent(address: string, calendarId: string, body: Omit<Partial<GoogleEvent>, 'attendees'> & { start: DateField; end: DateField; attendees?: Array<{ email: string; displayName?: string; responseStatus?: string }> }, o: { organizer?: string } = {}): GoogleEvent {
      const user = address.toLowerCase();
      const cal = calendarOf(user, calendarId)!;
      const e = build(user, cal, body as Record<string, unknown>, typeof body.id === 'string' ? body.id : newId(), o.organizer ?? user);
      stamp(cal, e);
      return e;
    },
    /** Someone else changes an event (a new time, a new title): a new etag, and the next incremental list returns it. */
    changeEvent(address: string, calendarId: string, eventId: string, patch: Partial<GoogleEvent>): GoogleEvent {
      const { cal, s } = stored(address, calendarId, eventId);
      const next = { ...s.event, ...patch, sequence: s.event.sequence + 1 } as GoogleEvent;
      stamp(cal, next);
      return next;
    },
    /** Someone else deletes an event: it stays as `cancelled` for incremental syncs. */
    deleteEvent(address: string, calendarId: string, eventId: string) {
      const { cal, s } = stored(address, calendarId, eventId);
      stamp(cal, { ...s.event, status: 'cancelled' });
    },
    event(address: string, calendarId: string, eventId: string): GoogleEvent | null {
      return calendarOf(address.toLowerCase(), calendarId)?.events.get(eventId)?.event ?? null;
    },
    events(address: string, calendarId: string): GoogleEvent[] {
      return [...(calendarOf(address.toLowerCase(), calendarId)?.events.values() ?? [])].map((s) => s.event);
    },
    /** The watch channels open now (made by events.watch, not yet stopped). */
    channels: () => [...channels.values()].map((c) => ({ ...c })),
    /** Every push notification posted, with the status Steward answered. */
    pushes: push.posts,
    /** Waits until every notification sent so far has been answered. */
    pushesSettled: push.settled,
    /** Posts to the deployment's public origin reach `listening` (its TLS proxy). */
    routePush: push.route,
    /** events.watch answers this refusal (null: channels are made). */
    refuseWatch(refusal: { status: number; reason: string; message: string } | null) {
      watchRefusal = refusal;
    },
    /** channels.stop answers this refusal and the channel stays open (null: channels are stopped). */
    refuseStop(refusal: { status: number; reason: string; message: string } | null) {
      stopRefusal = refusal;
    },
    stops,
    /** A notification posted before (one of `pushes`), sent again as it was, even on a channel stopped since; answers Steward's status. */
    replayPush: push.replay,
    /** A notification on an open channel, sent now, with another token to forge one; answers Steward's status. */
    async notify(channelId: string, o: { token?: string | null; state?: 'sync' | 'exists' } = {}): Promise<number> {
      const c = channels.get(channelId);
      if (!c) throw new Error(`google-calendar-fake: no channel ${channelId}`);
      return (await push.post(c.address, message(c, o.state ?? 'exists', o), null)).status;
    },
    /** Google stops honouring every sync token issued so far for this calendar: the next incremental list answers 410. */
    expireSyncTokens(address: string, calendarId: string) {
      calendarOf(address.toLowerCase(), calendarId)!.tokenFloor = ++seq;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
