import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeOAuth, readBody, sendJson } from '../mailboxes/support/fake-oauth';
import { graphCalendarSubscriptions } from './graph-calendar-fake-subscriptions';
import type { GraphFake } from './graph-fake';
import { graphTime, instantOf, token, untoken, type Account, type Calendar, type DateTimeTz, type DeltaState, type GraphEvent, type Stored } from './graph-calendar-model';

export type { GraphEvent } from './graph-calendar-model';

/*
 * A loopback stand-in for Microsoft Graph v1.0 calendars, speaking its documented wire format:
 * /me/calendars, the calendar view's delta (`/me/calendars/{id}/calendarView/delta` and the
 * default calendar's `/me/calendarView/delta`: startDateTime/endDateTime fixed by the first
 * request, pages by `Prefer: odata.maxpagesize` with @odata.nextLink, the round closed by an
 * @odata.deltaLink; changes since, deleted or moved-out events as `@removed`; 410
 * `SyncStateNotFound` for a delta token it no longer honours), events created
 * (`/me/events`, `/me/calendars/{id}/events`; a repeated `transactionId` answers the event made
 * the first time), read, changed (PATCH) and deleted with If-Match (412 on a stale
 * `@odata.etag`), and cancelled by their organizer with a message (`/cancel`). Times are
 * answered in UTC (`Prefer: outlook.timezone="UTC"`), as Graph writes them (seven fractional
 * digits, no offset). Bearer tokens are checked against its OAuth stand-in and must carry
 * Calendars.ReadWrite. Given the mail stand-in (`mail`), it shares its grants and forwards
 * everything that is not a calendar route to it, so one Graph URL serves mail and calendar.
 * A test can change events "as someone else"; every call and every write is recorded. Only
 * single instances are created through the API: a `recurrence` on create is refused (501) rather
 * than expanded wrong; a test can put a series' occurrences on a calendar (`addSeries`), as the
 * calendar view lists them (type `occurrence`, `seriesMasterId`, `originalStart`; a changed one
 * becomes an `exception`, a deleted one is removed from the view). Subscriptions on a calendar's
 * events (`me/calendars/{id}/events`) are its own (others go to the mail stand-in): made after
 * the validation handshake (the token posted to the notification URL must come back as
 * text/plain), at most 4,230 minutes long, renewed (PATCH) and deleted; every change to the
 * calendar's events is then posted as a changeNotificationCollection with the clientState.
 */

export const GRAPH_CALENDAR_SCOPE = 'Calendars.ReadWrite';

export type GraphCalendarCall = { method: string; path: string; authorization: string | null; ifMatch: string | null; prefer: string | null; user: string | null };
export type GraphCalendarWrite = { method: 'POST' | 'PATCH' | 'DELETE'; path: string; user: string; eventId: string | null; ifMatch: string | null; body: Record<string, unknown> | null; status: number };

export type GraphCalendarFake = Awaited<ReturnType<typeof startGraphCalendarFake>>;

const graphError = (res: http.ServerResponse, status: number, code: string, message: string) => sendJson(res, status, { error: { code, message } });

export async function startGraphCalendarFake(opts: { mail?: GraphFake; clientId?: string; clientSecret?: string; tenant?: string } = {}) {
  const tenant = opts.tenant ?? 'common';
  const accounts = new Map<string, Account>();
  const calls: GraphCalendarCall[] = [];
  const writes: GraphCalendarWrite[] = [];
  const cancellations: Array<{ user: string; eventId: string; comment: string | null; attendees: string[] }> = [];
  const oauth =
    opts.mail?.oauth ??
    new FakeOAuth(opts.clientId ?? 'graph-client', opts.clientSecret ?? 'graph-secret', {
      rotateRefresh: true,
      expiresIn: 3599,
      defaultUser: () => [...accounts.keys()][0] ?? null,
    });
  let seq = 0;
  let base = '';
  const subs = graphCalendarSubscriptions({ accountOf: (authorization) => accounts.get(oauth.userOf(authorization) ?? '') });
  const changed = subs.changed;

  const calendarOf = (acct: Account, id: string | null) => (id === null ? [...acct.calendars.values()].find((c) => c.isDefaultCalendar) : acct.calendars.get(id));

  function stamp(acct: Account, s: Omit<Stored, 'seq'>) {
    const before = acct.events.get(s.event.id);
    changed(acct.address, s.calendarId, s.event.id, s.deleted ? 'deleted' : before ? 'updated' : 'created');
    const n = ++seq;
    const changeKey = randomBytes(12).toString('base64');
    s.event.changeKey = changeKey;
    s.event['@odata.etag'] = `W/"${changeKey}"`;
    s.event.lastModifiedDateTime = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    acct.events.set(s.event.id, { ...s, seq: n });
  }

  /** The event as Graph answers it: times in UTC. */
  const present = (s: Stored): GraphEvent => ({ ...s.event, start: { dateTime: graphTime(s.start), timeZone: 'UTC' }, end: { dateTime: graphTime(s.end), timeZone: 'UTC' } });

  function attendeesOf(list: unknown): GraphEvent['attendees'] {
    if (!Array.isArray(list)) return [];
    return (list as Array<{ type?: string; emailAddress?: { address?: string; name?: string }; status?: { response?: string } }>).map((a) => ({
      type: a.type ?? 'required',
      status: { response: a.status?.response ?? 'none', time: '0001-01-01T00:00:00Z' },
      emailAddress: { name: a.emailAddress?.name ?? a.emailAddress?.address ?? '', address: a.emailAddress?.address ?? '' },
    }));
  }

  function create(acct: Account, cal: Calendar, body: Record<string, unknown>, organizer: string): Stored | 'recurrence' | 'times' {
    if (body.recurrence) return 'recurrence';
    const start = instantOf(body.start as DateTimeTz);
    const end = instantOf(body.end as DateTimeTz);
    if (start === null || end === null || end < start) return 'times';
    const id = `AAMkAGI2${randomBytes(24).toString('base64url')}`;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const content = ((body.body as { content?: string } | undefined)?.content ?? '').toString();
    const event: GraphEvent = {
      '@odata.etag': '',
      id,
      changeKey: '',
      iCalUId: `040000008200E00074C5B7101A82E008000000${randomBytes(16).toString('hex').toUpperCase()}`,
      createdDateTime: now,
      lastModifiedDateTime: now,
      subject: (body.subject as string | undefined) ?? null,
      bodyPreview: content.replace(/<[^>]*>/g, '').slice(0, 255),
      body: { contentType: ((body.body as { contentType?: 'text' | 'html' } | undefined)?.contentType ?? 'text').toLowerCase() as 'text' | 'html', content },
      start: body.start as DateTimeTz,
      end: body.end as DateTimeTz,
      originalStartTimeZone: (body.start as DateTimeTz).timeZone ?? 'UTC',
      originalEndTimeZone: (body.end as DateTimeTz).timeZone ?? 'UTC',
      isAllDay: body.isAllDay === true,
      isCancelled: false,
      isOrganizer: organizer === acct.address,
      showAs: (body.showAs as string | undefined) ?? 'busy',
      type: 'singleInstance',
      seriesMasterId: null,
      location: { displayName: (body.location as { displayName?: string } | undefined)?.displayName ?? '' },
      attendees: attendeesOf(body.attendees),
      organizer: { emailAddress: { name: organizer, address: organizer } },
      transactionId: (body.transactionId as string | undefined) ?? null,
      isOnlineMeeting: body.isOnlineMeeting === true,
      webLink: `https://outlook.office365.com/owa/?itemid=${encodeURIComponent(id)}&exvsurl=1&path=/calendar/item`,
    };
    const ext = Object.fromEntries(((body.singleValueExtendedProperties as Array<{ id: string; value: string }> | undefined) ?? []).map((p) => [p.id, p.value]));
    const s = { event, calendarId: cal.id, start, end, deleted: false, ext };
    stamp(acct, s);
    return acct.events.get(id)!;
  }

  function delta(req: http.IncomingMessage, res: http.ServerResponse, url: URL, acct: Account, cal: Calendar) {
    const q = url.searchParams;
    const skip = q.get('$skiptoken');
    const deltaToken = q.get('$deltatoken');
    let state: DeltaState;
    if (skip !== null) {
      const s = untoken<DeltaState>(skip);
      if (!s || s.c !== cal.id) return graphError(res, 400, 'ErrorInvalidUrlQuery', 'The skip token is not valid.');
      state = s;
    } else if (deltaToken !== null) {
      const s = untoken<DeltaState>(deltaToken);
      if (!s || s.c !== cal.id) return graphError(res, 400, 'ErrorInvalidUrlQuery', 'The delta token is not valid.');
      if (s.s < cal.tokenFloor) return graphError(res, 410, 'SyncStateNotFound', 'The sync state generation is not found.');
      state = { c: s.c, a: s.a, b: s.b, since: s.s, s: seq, o: 0 };
    } else {
      const a = Date.parse(q.get('startDateTime') ?? q.get('startdatetime') ?? '');
      const b = Date.parse(q.get('endDateTime') ?? q.get('enddatetime') ?? '');
      if (Number.isNaN(a) || Number.isNaN(b)) return graphError(res, 400, 'ErrorInvalidParameter', 'This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.');
      state = { c: cal.id, s: seq, a, b, since: 0, o: 0 };
    }
    const size = Number(/odata\.maxpagesize=(\d+)/.exec(String(req.headers.prefer ?? ''))?.[1] ?? 100);
    const inView = (s: Stored) => !s.deleted && s.end > state.a && s.start < state.b;
    const changed = [...acct.events.values()]
      .filter((s) => s.calendarId === cal.id && s.seq > state.since && s.seq <= state.s)
      // A first round lists what is in the view; later rounds also say what left it.
      .filter((s) => inView(s) || state.since > 0)
      .sort((x, y) => x.seq - y.seq);
    const offset = state.o ?? 0;
    const value = changed.slice(offset, offset + size).map((s) => (inView(s) ? present(s) : { '@odata.type': '#microsoft.graph.event', id: s.event.id, '@removed': { reason: 'deleted' } }));
    const route = `${base}/v1.0${url.pathname.replace(/^\/v1\.0/, '')}`;
    const more = offset + size < changed.length;
    return sendJson(res, 200, {
      '@odata.context': `${base}/v1.0/$metadata#Collection(event)`,
      value,
      ...(more
        ? { '@odata.nextLink': `${route}?$skiptoken=${token({ ...state, o: offset + size })}` }
        : { '@odata.deltaLink': `${route}?$deltatoken=${token({ c: cal.id, s: state.s, a: state.a, b: state.b, since: state.s })}` }),
    });
  }

  async function api(req: http.IncomingMessage, res: http.ServerResponse, url: URL, acct: Account): Promise<boolean> {
    const path = decodeURIComponent(url.pathname.replace(/^\/v1\.0/, ''));
    const ifMatch = (req.headers['if-match'] as string | undefined) ?? null;
    const user = acct.address;
    const json = async () => JSON.parse((await readBody(req)).toString('utf8') || '{}') as Record<string, unknown>;
    if (req.method === 'GET' && path === '/me/calendars') {
      sendJson(res, 200, {
        value: [...acct.calendars.values()].map((c) => ({
          id: c.id,
          name: c.name,
          color: 'auto',
          hexColor: c.hexColor,
          isDefaultCalendar: c.isDefaultCalendar,
          changeKey: 'fJKVL07sbkmIfHqjbDnRgQAAAAACFw==',
          canShare: c.canEdit,
          canViewPrivateItems: true,
          canEdit: c.canEdit,
          owner: { name: user, address: user },
        })),
      });
      return true;
    }
    const view = /^\/me(?:\/calendars\/([^/]+))?\/calendarView\/delta$/.exec(path);
    if (req.method === 'GET' && view) {
      const cal = calendarOf(acct, view[1] ?? null);
      if (!cal) graphError(res, 404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
      else delta(req, res, url, acct, cal);
      return true;
    }
    const coll = /^\/me(?:\/calendars\/([^/]+))?\/events$/.exec(path);
    if (req.method === 'GET' && coll) {
      // The documented filter on a named extended property: singleValueExtendedProperties/Any(ep: ep/id eq '…' and ep/value eq '…').
      const f = /^singleValueExtendedProperties\/Any\(ep: ep\/id eq '((?:[^']|'')*)' and ep\/value eq '((?:[^']|'')*)'\)$/.exec(url.searchParams.get('$filter') ?? '');
      const cal = calendarOf(acct, coll[1] ?? null);
      if (!cal || !f) {
        graphError(res, 400, 'ErrorInvalidUrlQueryFilter', 'The stand-in answers only the extended-property filter.');
        return true;
      }
      const [id, value] = [f[1].replace(/''/g, "'"), f[2].replace(/''/g, "'")];
      const found = [...acct.events.values()].filter((x) => x.calendarId === cal.id && !x.deleted && x.ext[id] === value);
      sendJson(res, 200, { value: found.map(present) });
      return true;
    }
    if (req.method === 'POST' && coll) {
      const cal = calendarOf(acct, coll[1] ?? null);
      const body = await json();
      const record = (eventId: string | null, status: number) => writes.push({ method: 'POST', path, user, eventId, ifMatch, body, status });
      if (!cal) {
        graphError(res, 404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
        return true;
      }
      if (!cal.canEdit) {
        record(null, 403);
        graphError(res, 403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
        return true;
      }
      const again = typeof body.transactionId === 'string' ? [...acct.events.values()].find((s) => s.event.transactionId === body.transactionId && !s.deleted) : undefined;
      if (again) {
        record(again.event.id, 201);
        sendJson(res, 201, present(again));
        return true;
      }
      const made = create(acct, cal, body, user);
      if (made === 'recurrence') graphError(res, 501, 'NotImplemented', 'This stand-in keeps single instances only.');
      else if (made === 'times') graphError(res, 400, 'ErrorInvalidRequest', 'Your request can\u2019t be completed. The start and end times are missing or invalid.');
      else {
        record(made.event.id, 201);
        sendJson(res, 201, present(made));
      }
      return true;
    }
    const one = /^\/me(?:\/calendars\/[^/]+)?\/events\/([^/]+)(\/cancel)?$/.exec(path);
    if (!one) return false;
    const s = acct.events.get(one[1]);
    const record = (method: GraphCalendarWrite['method'], body: Record<string, unknown> | null, status: number) => writes.push({ method, path, user, eventId: one[1], ifMatch, body, status });
    if (!s || s.deleted) {
      if (req.method !== 'GET') record(req.method as GraphCalendarWrite['method'], null, 404);
      graphError(res, 404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
      return true;
    }
    if (req.method === 'GET' && !one[2]) {
      sendJson(res, 200, present(s));
      return true;
    }
    const stale = ifMatch !== null && ifMatch !== s.event['@odata.etag'];
    const conflict = () =>
      graphError(res, 412, 'ErrorIrresolvableConflict', 'The send or update operation could not be performed because the change key passed in the request does not match the current change key for the item.');
    if (req.method === 'POST' && one[2]) {
      const body = await json();
      if (!s.event.isOrganizer) {
        record('POST', body, 400);
        graphError(res, 400, 'ErrorAccessDenied', 'Your request can\u2019t be completed. You need to be an organizer to cancel a meeting.');
        return true;
      }
      record('POST', body, 202);
      cancellations.push({ user, eventId: s.event.id, comment: (body.Comment as string | undefined) ?? null, attendees: s.event.attendees.map((a) => a.emailAddress.address) });
      stamp(acct, { ...s, event: { ...s.event, isCancelled: true }, deleted: true });
      res.writeHead(202).end();
      return true;
    }
    if (req.method === 'DELETE') {
      if (stale) {
        record('DELETE', null, 412);
        conflict();
        return true;
      }
      record('DELETE', null, 204);
      stamp(acct, { ...s, deleted: true });
      res.writeHead(204).end();
      return true;
    }
    if (req.method === 'PATCH') {
      const body = await json();
      if (stale) {
        record('PATCH', body, 412);
        conflict();
        return true;
      }
      if (body.recurrence) {
        graphError(res, 501, 'NotImplemented', 'This stand-in keeps single instances only.');
        return true;
      }
      const start = body.start ? instantOf(body.start as DateTimeTz) : s.start;
      const end = body.end ? instantOf(body.end as DateTimeTz) : s.end;
      if (start === null || end === null || end < start) {
        record('PATCH', body, 400);
        graphError(res, 400, 'ErrorInvalidRequest', 'The start and end times are invalid.');
        return true;
      }
      const next: GraphEvent = { ...s.event, ...(body as Partial<GraphEvent>), id: s.event.id, iCalUId: s.event.iCalUId, organizer: s.event.organizer, type: s.event.type, seriesMasterId: s.event.seriesMasterId };
      // An occurrence of a series that is changed becomes an exception (it keeps its id and its original start).
      if (next.type === 'occurrence') next.type = 'exception';
      if ('attendees' in body) next.attendees = attendeesOf(body.attendees);
      if ('location' in body) next.location = { displayName: (body.location as { displayName?: string } | null)?.displayName ?? '' };
      record('PATCH', body, 200);
      stamp(acct, { ...s, event: next, start, end });
      sendJson(res, 200, present(acct.events.get(s.event.id)!));
      return true;
    }
    return false;
  }

  /** Hands a request the calendar routes do not answer to the mail stand-in, as it came. */
  async function forward(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
    const answer = await fetch(`${opts.mail!.base}${req.url}`, { method: req.method, headers, body: ['GET', 'HEAD'].includes(req.method ?? 'GET') ? undefined : new Uint8Array(body), redirect: 'manual' });
    const out: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) out[k] = v;
    });
    res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
  }

  const isCalendarRoute = (path: string) => /^\/v1\.0\/me\/(calendars|calendarView|events)(\/|$)/.test(path);

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://graph.fake');
      if (/^\/v1\.0\/subscriptions(\/|$)/.test(url.pathname)) {
        const body = ['GET', 'HEAD', 'DELETE'].includes(req.method ?? 'GET') ? Buffer.alloc(0) : await readBody(req);
        if (await subs.route(req, res, url, body)) return;
        if (opts.mail) return forward(req, res, body);
        return graphError(res, 404, 'ResourceNotFound', 'The object was not found.');
      }
      if (opts.mail && !isCalendarRoute(url.pathname)) return forward(req, res, ['GET', 'HEAD'].includes(req.method ?? 'GET') ? Buffer.alloc(0) : await readBody(req));
      if (req.method === 'GET' && url.pathname === `/${tenant}/oauth2/v2.0/authorize`) {
        const r = oauth.authorize(url);
        return r.location ? res.writeHead(302, { Location: r.location }).end() : res.writeHead(r.status).end(r.body);
      }
      if (req.method === 'POST' && url.pathname === `/${tenant}/oauth2/v2.0/token`) {
        const r = oauth.token(new URLSearchParams((await readBody(req)).toString('utf8')));
        return sendJson(res, r.status, r.body);
      }
      if (url.pathname.startsWith('/v1.0/')) {
        const user = oauth.userOf(req.headers.authorization);
        calls.push({ method: req.method ?? 'GET', path: url.pathname + url.search, authorization: req.headers.authorization ?? null, ifMatch: (req.headers['if-match'] as string) ?? null, prefer: (req.headers.prefer as string) ?? null, user });
        const acct = user ? accounts.get(user) : undefined;
        if (!acct) return graphError(res, 401, 'InvalidAuthenticationToken', 'Access token is empty or invalid.');
        if (req.method === 'GET' && url.pathname === '/v1.0/me') return sendJson(res, 200, { id: randomBytes(8).toString('hex'), displayName: acct.address, mail: acct.address, userPrincipalName: acct.address });
        const scopes = (oauth.scopeOf(req.headers.authorization) ?? '').split(' ');
        if (!scopes.some((s) => s === GRAPH_CALENDAR_SCOPE || s.endsWith(`/${GRAPH_CALENDAR_SCOPE}`)))
          return graphError(res, 403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
        if (await api(req, res, url, acct)) return;
      }
      graphError(res, 404, 'BadRequest', `Resource not found for the segment '${url.pathname}'.`);
    })().catch((e: unknown) => graphError(res, 500, 'InternalServerError', String(e)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const account = (address: string) => {
    const a = accounts.get(address.toLowerCase());
    if (!a) throw new Error(`graph-calendar-fake: no account ${address}`);
    return a;
  };
  const storedEvent = (address: string, eventId: string) => {
    const acct = account(address);
    const s = acct.events.get(eventId);
    if (!s) throw new Error(`graph-calendar-fake: no event ${eventId}`);
    return { acct, s };
  };

  return {
    base,
    oauth,
    calls,
    writes,
    cancellations,
    /** The environment that points Steward at this stand-in (it answers the login and mail routes too, forwarding them to the mail stand-in when given). */
    env: { MICROSOFT_CLIENT_ID: oauth.clientId, MICROSOFT_CLIENT_SECRET: oauth.clientSecret, STEWARD_MICROSOFT_LOGIN_URL: base, STEWARD_GRAPH_API_URL: `${base}/v1.0`, MICROSOFT_TENANT: tenant },
    /** A Microsoft 365 account with its default calendar ("Calendar"). */
    addUser(address: string) {
      const id = `AAMkAGI2Cal${randomBytes(12).toString('base64url')}`;
      accounts.set(address.toLowerCase(), { address: address.toLowerCase(), calendars: new Map([[id, { id, name: 'Calendar', hexColor: '#e3008c', isDefaultCalendar: true, canEdit: true, tokenFloor: 0 }]]), events: new Map() });
    },
    addCalendar(address: string, c: { name: string; canEdit?: boolean; hexColor?: string }): string {
      const id = `AAMkAGI2Cal${randomBytes(12).toString('base64url')}`;
      account(address).calendars.set(id, { id, name: c.name, hexColor: c.hexColor ?? '#0078d4', isDefaultCalendar: false, canEdit: c.canEdit ?? true, tokenFloor: 0 });
      return id;
    },
    defaultCalendarId(address: string): string {
      return calendarOf(account(address), null)!.id;
    },
    /** An event someone else put on the user's calendar (an invitation they sent, or the user in Outlook). */
    addEvent(address: string, calendarId: string | null, e: { subject: string; start: Date; end: Date; attendees?: string[]; location?: string; body?: string }, o: { organizer?: string } = {}): GraphEvent {
      const acct = account(address);
      const made = create(
        acct,
        calendarOf(acct, calendarId)!,
        {
          subject: e.subject,
          start: { dateTime: e.start.toISOString().slice(0, 19), timeZone: 'UTC' },
          end: { dateTime: e.end.toISOString().slice(0, 19), timeZone: 'UTC' },
          attendees: (e.attendees ?? []).map((address) => ({ emailAddress: { address } })),
          location: { displayName: e.location ?? '' },
          body: { contentType: 'text', content: e.body ?? '' },
        },
        (o.organizer ?? acct.address).toLowerCase(),
      ) as Stored;
      return present(made);
    },
    /** A recurring series as the calendar view lists it: its occurrences, each with its own id, the series' master id and its original start. */
    addSeries(address: string, calendarId: string | null, e: { subject: string; starts: Date[]; minutes: number }, o: { organizer?: string } = {}): { seriesMasterId: string; occurrences: GraphEvent[] } {
      const acct = account(address);
      const seriesMasterId = `AAMkAGI2Mst${randomBytes(16).toString('base64url')}`;
      const occurrences = e.starts.map((start) => {
        const end = new Date(start.getTime() + e.minutes * 60_000);
        const made = create(acct, calendarOf(acct, calendarId)!, { subject: e.subject, start: { dateTime: start.toISOString().slice(0, 19), timeZone: 'UTC' }, end: { dateTime: end.toISOString().slice(0, 19), timeZone: 'UTC' } }, (o.organizer ?? acct.address).toLowerCase()) as Stored;
        made.event.type = 'occurrence';
        made.event.seriesMasterId = seriesMasterId;
        made.event.originalStart = start.toISOString().replace(/\.\d{3}Z$/, 'Z');
        return present(made);
      });
      return { seriesMasterId, occurrences };
    },
    /** Someone else changes an event (a new time, a new subject): a new etag, and the next delta round returns it. */
    changeEvent(address: string, eventId: string, change: { subject?: string; start?: Date; end?: Date }): GraphEvent {
      const { acct, s } = storedEvent(address, eventId);
      stamp(acct, { ...s, event: { ...s.event, ...(change.subject !== undefined ? { subject: change.subject } : {}) }, start: change.start?.getTime() ?? s.start, end: change.end?.getTime() ?? s.end });
      return present(acct.events.get(eventId)!);
    },
    /** Someone else deletes an event: the next delta round says it was removed. */
    deleteEvent(address: string, eventId: string) {
      const { acct, s } = storedEvent(address, eventId);
      stamp(acct, { ...s, deleted: true });
    },
    event(address: string, eventId: string): (GraphEvent & { deleted: boolean }) | null {
      const s = accounts.get(address.toLowerCase())?.events.get(eventId);
      return s ? { ...present(s), deleted: s.deleted } : null;
    },
    events(address: string): Array<GraphEvent & { deleted: boolean; calendarId: string }> {
      return [...account(address).events.values()].map((s) => ({ ...present(s), deleted: s.deleted, calendarId: s.calendarId }));
    },
    /** The calendar subscriptions open now. */
    subscriptions: subs.list,
    /** The validation handshakes made (the status and text Steward answered). */
    validations: subs.validations,
    /** Every notification and handshake posted, with the status Steward answered. */
    pushes: subs.pushes,
    pushesSettled: subs.settled,
    /** Posts to the deployment's public origin reach `listening` (its TLS proxy). */
    routePush: subs.routePush,
    /** A notification on a subscription, sent now (another `clientState` forges one); answers Steward's status. */
    notify: subs.notify,
    /** Every DELETE of a calendar subscription, with the status answered. */
    subscriptionDeletions: subs.deletions,
    /** Deleting a subscription answers this refusal and it stays (null: they are deleted). */
    refuseSubscriptionDelete: subs.refuseDelete,
    /** A notification posted before (one of `pushes`), sent again as it was, even for a subscription deleted since; answers Steward's status. */
    replayPush: subs.replay,
    /** Graph forgets the sync state of this calendar: every delta link handed out so far answers 410. */
    expireDeltaTokens(address: string, calendarId: string) {
      account(address).calendars.get(calendarId)!.tokenFloor = ++seq;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
