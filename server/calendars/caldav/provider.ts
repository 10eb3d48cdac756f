import { calendarQuery, createAccount, davRequest, propfind, syncCollection, type DAVAccount, type DAVResponse } from 'tsdav';
import { CalendarConflict, CalendarUnreachable, type CalendarProvider, type EventDraft, type OccurrenceRef, type RemoteCalendar, type RemoteEvent, type SeriesNow, type SyncResult } from '../provider';
import { caldavFetch } from './fetch';
import { applyChanges, draftToIcs, excludeInstance, parseCalendarObject, ridFor } from './ical';

/*
 * CalDAV (RFC 4791) through tsdav, for any server a user names by URL, username and app password
 * (Fastmail, iCloud, Nextcloud, Radicale): discovery by current-user-principal and
 * calendar-home-set (after /.well-known/caldav), changes by sync-collection (RFC 6578) with the
 * sync token as the cursor, or by the collection's ctag where a server has no sync-collection
 * (then a changed ctag is a full listing). Writes carry If-Match with the ETag the event was read
 * at (a create If-None-Match: *), so an event changed meanwhile is a CalendarConflict and nothing
 * is written. Every request goes through caldavFetch (the outbound address rule, timeouts).
 */

export type CaldavCredentials = { url: string; username: string; password: string };

const SYNC = 'sync:';
const CTAG = 'ctag:';

const str = (v: unknown): string | null => {
  if (v == null) return null;
  if (typeof v === 'object' && '_cdata' in (v as object)) return String((v as { _cdata: unknown })._cdata);
  if (typeof v === 'object' && '_text' in (v as object)) return String((v as { _text: unknown })._text);
  return typeof v === 'object' ? null : String(v);
};

/** The words a failed request gives the user: the server's status, or the network's error. */
function unreachable(e: unknown): CalendarUnreachable {
  if (e instanceof CalendarUnreachable) return e;
  const message = (e as Error)?.message ?? String(e);
  if (/401|Invalid credentials/i.test(message)) return new CalendarUnreachable('The CalDAV server refused the username or password (401 Unauthorized)');
  if (/cannot find (principalUrl|homeUrl)/.test(message)) return new CalendarUnreachable(`No CalDAV calendars were found at this URL (${message.replace('cannot find ', 'no ')})`);
  const cause = (e as { cause?: { message?: string } })?.cause?.message;
  return new CalendarUnreachable(`The CalDAV server could not be reached: ${cause ?? message}`);
}

const failed = (r: DAVResponse | undefined, what: string) => {
  if (r?.status === 401) return new CalendarUnreachable('The CalDAV server refused the username or password (401 Unauthorized)');
  return new CalendarUnreachable(`The CalDAV server answered ${what} with ${r?.status ?? 'nothing'} ${r?.statusText ?? ''}`.trim());
};

/** Whether the privileges the server lists for the user include writing. */
function writable(privileges: unknown): boolean {
  if (privileges == null) return true;
  const names = JSON.stringify(privileges).toLowerCase();
  return /"(all|write|writecontent|bind)"/.test(names);
}

export function caldavProvider(creds: CaldavCredentials, o: { organizer?: string | null } = {}): CalendarProvider & { discover(): Promise<DAVAccount> } {
  const headers = { Authorization: `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}` };
  const common = { headers, fetch: caldavFetch as typeof fetch };
  const organizer = o.organizer ?? (creds.username.includes('@') ? creds.username.toLowerCase() : null);
  const serverUrl = creds.url.endsWith('/') ? creds.url : `${creds.url}/`;

  const discover = async (): Promise<DAVAccount> => {
    try {
      return await createAccount({ account: { serverUrl, accountType: 'caldav' }, ...common });
    } catch (e) {
      throw unreachable(e);
    }
  };

  const pathOf = (href: string, base: string) => new URL(href, base).pathname;

  /** The calendar objects a REPORT answered, as events (a 404 in a sync answer: deleted). */
  function read(responses: DAVResponse[], calendarUrl: string, zone: string | null) {
    const changed: RemoteEvent[] = [];
    const deleted: string[] = [];
    const missingData: string[] = [];
    for (const r of responses) {
      if (!r.href) continue;
      const href = pathOf(r.href, calendarUrl);
      // The collection itself can be listed in an answer: only its members are events.
      if (href.replace(/\/$/, '') === pathOf(calendarUrl, calendarUrl).replace(/\/$/, '')) continue;
      if (r.status === 404) {
        deleted.push(href);
        continue;
      }
      if (!r.ok) continue;
      const data = str(r.props?.calendarData);
      if (!data) {
        missingData.push(href);
        continue;
      }
      changed.push(...parseCalendarObject(data, { href, etag: str(r.props?.getetag), url: new URL(href, calendarUrl).href, zone }));
    }
    return { changed, deleted, missingData };
  }

  const DATA_PROPS = { 'd:getetag': {}, 'c:calendar-data': {} };

  async function multiget(calendarUrl: string, hrefs: string[], zone: string | null): Promise<RemoteEvent[]> {
    if (!hrefs.length) return [];
    const body = {
      'calendar-multiget': {
        _attributes: { 'xmlns:d': 'DAV:', 'xmlns:c': 'urn:ietf:params:xml:ns:caldav' },
        'd:prop': DATA_PROPS,
        'd:href': hrefs,
      },
    };
    const res = await davRequest({ url: calendarUrl, init: { method: 'REPORT', namespace: 'c', headers: { ...headers, depth: '1' }, body }, fetch: caldavFetch as typeof fetch });
    return read(res, calendarUrl, zone).changed;
  }

  /** Everything in the calendar (calendar-query for VEVENTs with their data). */
  async function listAll(calendarUrl: string, zone: string | null): Promise<RemoteEvent[]> {
    const res = await calendarQuery({
      url: calendarUrl,
      props: DATA_PROPS,
      filters: { 'comp-filter': { _attributes: { name: 'VCALENDAR' }, 'comp-filter': { _attributes: { name: 'VEVENT' } } } },
      depth: '1',
      ...common,
    });
    if (res.length === 1 && !res[0].ok && !res[0].href?.endsWith('.ics')) throw failed(res[0], 'a calendar query');
    const { changed, missingData } = read(res, calendarUrl, zone);
    return [...changed, ...(await multiget(calendarUrl, missingData, zone))];
  }

  async function ctagOf(calendarUrl: string): Promise<string | null> {
    const [r] = await propfind({ url: calendarUrl, props: { 'cs:getctag': {}, 'd:sync-token': {} }, depth: '0', ...common });
    if (!r?.ok) throw failed(r, 'a PROPFIND of the calendar');
    return str(r.props?.getctag) ?? str(r.props?.syncToken);
  }

  async function syncByCollection(calendarUrl: string, token: string, zone: string | null): Promise<SyncResult | null> {
    const res = await syncCollection({ url: calendarUrl, props: DATA_PROPS, syncLevel: 1, syncToken: token, ...common });
    const top = res[0]?.raw as { multistatus?: { syncToken?: unknown } } | undefined;
    const next = str(top?.multistatus?.syncToken);
    // No multistatus: the server refused the token (RFC 6578: 403/409 valid-sync-token) or has no sync-collection.
    if (!top?.multistatus || !next) {
      if (res[0]?.status === 401) throw failed(res[0], 'a sync-collection REPORT');
      return null;
    }
    const { changed, deleted, missingData } = read(res, calendarUrl, zone);
    changed.push(...(await multiget(calendarUrl, missingData, zone)));
    return { changed, deleted, cursor: `${SYNC}${next}`, full: token === '' };
  }

  /** The resource of an event id (`/path/x.ics` or `/path/x.ics#RECURRENCE-ID`). */
  const split = (calendarUrl: string, providerEventId: string) => {
    const i = providerEventId.indexOf('#');
    const path = i < 0 ? providerEventId : providerEventId.slice(0, i);
    return { url: new URL(path, calendarUrl).href, href: path, rid: i < 0 ? null : providerEventId.slice(i + 1) };
  };

  async function getObject(url: string): Promise<{ status: number; body: string; etag: string | null }> {
    const res = await caldavFetch(url, { method: 'GET', headers });
    return { status: res.status, body: await res.text(), etag: res.headers.get('etag') };
  }

  async function put(url: string, ics: string, precondition: Record<string, string>) {
    const res = await caldavFetch(url, { method: 'PUT', headers: { ...headers, 'Content-Type': 'text/calendar; charset=utf-8', ...precondition }, body: ics });
    await res.arrayBuffer();
    return res;
  }

  /** The event as the server now has it (after a write whose answer carried no ETag, or to reconcile). */
  async function reread(calendarUrl: string, href: string, rid: string | null): Promise<RemoteEvent> {
    const got = await getObject(new URL(href, calendarUrl).href);
    if (got.status !== 200) throw new CalendarUnreachable(`The CalDAV server answered a read of the written event with ${got.status}`);
    const events = parseCalendarObject(got.body, { href, etag: got.etag, url: new URL(href, calendarUrl).href, zone: null });
    const id = rid ? `${href}#${rid}` : href;
    const found = events.find((e) => e.providerEventId === id) ?? events[0];
    if (!found) throw new CalendarUnreachable('The CalDAV server kept an event Steward cannot read back');
    return found;
  }

  const guard = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      throw e instanceof CalendarConflict ? e : unreachable(e);
    }
  };

  return {
    name: 'caldav',
    discover,

    listCalendars: () =>
      guard(async () => {
        const account = await discover();
        const res = await propfind({
          url: account.homeUrl!,
          props: {
            'd:displayname': {},
            'd:resourcetype': {},
            'ca:calendar-color': {},
            'c:calendar-timezone': {},
            'c:supported-calendar-component-set': {},
            'd:current-user-privilege-set': {},
          },
          depth: '1',
          ...common,
        });
        const out: RemoteCalendar[] = [];
        for (const r of res) {
          if (!r.href || !r.ok || !Object.keys(r.props?.resourcetype ?? {}).includes('calendar')) continue;
          const comps = JSON.stringify(r.props?.supportedCalendarComponentSet ?? '');
          // A calendar that holds only tasks (VTODO) has no events.
          if (comps.includes('VTODO') && !comps.includes('VEVENT')) continue;
          const url = new URL(r.href, account.homeUrl!).href;
          const tz = str(r.props?.calendarTimezone);
          const tzid = tz ? /TZID:([^\r\n]+)/.exec(tz)?.[1]?.trim() ?? null : null;
          const color = str(r.props?.calendarColor);
          out.push({
            remoteId: url,
            name: str(r.props?.displayname) ?? decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? 'Calendar'),
            // Apple's colour is #RRGGBBAA: the alpha is dropped.
            color: color ? color.slice(0, 7) : null,
            timezone: tzid,
            readOnly: !writable(r.props?.currentUserPrivilegeSet),
            primary: false,
          });
        }
        // CalDAV names no primary calendar: the first writable one is taken as it.
        const first = out.find((c) => !c.readOnly);
        if (first) first.primary = true;
        return out;
      }),

    sync: ({ remoteId, cursor, timezone }) =>
      guard(async () => {
        if (cursor?.startsWith(SYNC)) {
          const incremental = await syncByCollection(remoteId, cursor.slice(SYNC.length), timezone);
          if (incremental) return incremental;
        }
        if (!cursor?.startsWith(CTAG)) {
          const full = await syncByCollection(remoteId, '', timezone);
          if (full) return full;
        }
        // No sync-collection: the ctag says whether anything changed; if so, everything is listed again.
        const ctag = await ctagOf(remoteId);
        if (ctag && cursor === `${CTAG}${ctag}`) return { changed: [], deleted: [], cursor, full: false };
        return { changed: await listAll(remoteId, timezone), deleted: [], cursor: ctag ? `${CTAG}${ctag}` : null, full: true };
      }),

    create: ({ remoteId }, draft) =>
      guard(async () => {
        const href = new URL(`${encodeURIComponent(draft.uid)}.ics`, remoteId).pathname;
        const res = await put(new URL(href, remoteId).href, draftToIcs(draft, organizer), { 'If-None-Match': '*' });
        // 412: a resource of this UID exists already (a retry after a crash): that one is the event.
        if (res.status === 412) {
          const found = await findByUid(remoteId, draft.uid);
          if (found) return found;
        }
        if (res.status === 401) throw new CalendarUnreachable('The CalDAV server refused the username or password (401 Unauthorized)');
        if (res.status >= 300) throw new CalendarUnreachable(`The CalDAV server refused the new event: ${res.status} ${res.statusText}`);
        return reread(remoteId, href, null);
      }),

    update: ({ remoteId }, event, changes: Partial<EventDraft>) =>
      guard(async () => {
        const { url, href, rid } = split(remoteId, event.providerEventId);
        const got = await getObject(url);
        if (got.status === 404) throw new CalendarConflict('The event was deleted at the calendar since it was read');
        if (got.status !== 200) throw new CalendarUnreachable(`The CalDAV server answered a read of the event with ${got.status}`);
        if (event.etag && got.etag && got.etag !== event.etag) throw new CalendarConflict('The event changed at the calendar since it was read');
        const next = applyChanges(got.body, { rid }, changes);
        if (!next) throw new CalendarConflict('The occurrence is no longer part of the event');
        const res = await put(url, next, got.etag ? { 'If-Match': got.etag } : {});
        if (res.status === 412) throw new CalendarConflict('The event changed at the calendar since it was read');
        if (res.status >= 300) throw new CalendarUnreachable(`The CalDAV server refused the change: ${res.status} ${res.statusText}`);
        return reread(remoteId, href, rid);
      }),

    cancel: ({ remoteId }, event) =>
      guard(async () => {
        const { url, rid } = split(remoteId, event.providerEventId);
        if (!rid) {
          const res = await caldavFetch(url, { method: 'DELETE', headers: { ...headers, ...(event.etag ? { 'If-Match': event.etag } : {}) } });
          await res.arrayBuffer();
          if (res.status === 412) throw new CalendarConflict('The event changed at the calendar since it was read');
          // Gone already: the cancellation holds.
          if (res.status >= 300 && res.status !== 404) throw new CalendarUnreachable(`The CalDAV server refused to delete the event: ${res.status} ${res.statusText}`);
          return;
        }
        const got = await getObject(url);
        if (got.status === 404) return;
        if (event.etag && got.etag && got.etag !== event.etag) throw new CalendarConflict('The event changed at the calendar since it was read');
        const next = excludeInstance(got.body, rid);
        if (!next) throw new CalendarConflict('The occurrence is no longer part of a series');
        const res = await put(url, next, got.etag ? { 'If-Match': got.etag } : {});
        if (res.status === 412) throw new CalendarConflict('The event changed at the calendar since it was read');
        if (res.status >= 300) throw new CalendarUnreachable(`The CalDAV server refused the change: ${res.status} ${res.statusText}`);
      }),

    findByUid: ({ remoteId }, uid) => guard(() => findByUid(remoteId, uid)),

    updateOccurrence: (calendar, ref, changes) => guard(() => writeOccurrence(calendar, ref, (body, rid) => applyChanges(body, { rid }, changes))),
    cancelOccurrence: (calendar, ref) => guard(() => writeOccurrence(calendar, ref, (body, rid) => excludeInstance(body, rid))),

    readOccurrence: (calendar, ref) =>
      guard(async () => {
        const { url, href } = split(calendar.remoteId, ref.providerEventId);
        const got = await getObject(url);
        if (got.status === 404) return null;
        if (got.status !== 200) throw new CalendarUnreachable(`The CalDAV server answered a read of the event with ${got.status}`);
        const rid = ridFor(got.body, ref.originalStart, calendar.timezone ?? null);
        if (!rid) return null;
        const events = parseCalendarObject(got.body, { href, etag: got.etag, url, zone: calendar.timezone ?? null });
        const master = events.find((e) => !e.recurrenceOf);
        if (master?.recurrence?.some((l) => /^EXDATE/i.test(l) && l.includes(rid))) return 'cancelled';
        const own = events.find((e) => e.providerEventId === `${href}#${rid}`);
        return own ? (own.status === 'cancelled' ? 'cancelled' : own) : null;
      }),
  };

  /**
   * One occurrence of the series in a resource written (`edit` makes the new resource from the
   * current one and the occurrence's RECURRENCE-ID): only if the resource is still the version
   * read (If-Match), then the resource read back whole for the local copy.
   */
  async function writeOccurrence(calendar: { remoteId: string; timezone?: string | null }, ref: OccurrenceRef, edit: (body: string, rid: string) => string | null): Promise<SeriesNow> {
    const { url, href } = split(calendar.remoteId, ref.providerEventId);
    const got = await getObject(url);
    if (got.status === 404) throw new CalendarConflict('The recurring event was deleted at the calendar since it was read');
    if (got.status !== 200) throw new CalendarUnreachable(`The CalDAV server answered a read of the event with ${got.status}`);
    if (ref.etag && got.etag && got.etag !== ref.etag) throw new CalendarConflict('The recurring event changed at the calendar since it was read');
    const rid = ridFor(got.body, ref.originalStart, calendar.timezone ?? null);
    const next = rid ? edit(got.body, rid) : null;
    if (!rid || !next) throw new CalendarConflict('The occurrence is no longer part of the recurring event');
    const res = await put(url, next, got.etag ? { 'If-Match': got.etag } : {});
    if (res.status === 412) throw new CalendarConflict('The recurring event changed at the calendar since it was read');
    if (res.status >= 300) throw new CalendarUnreachable(`The CalDAV server refused the change: ${res.status} ${res.statusText}`);
    const now = await getObject(url);
    if (now.status !== 200) throw new CalendarUnreachable(`The CalDAV server answered a read of the written event with ${now.status}`);
    return { events: parseCalendarObject(now.body, { href, etag: now.etag, url, zone: calendar.timezone ?? null }), whole: true, occurrenceId: `${href}#${rid}` };
  }

  async function findByUid(calendarUrl: string, uid: string): Promise<RemoteEvent | null> {
    const res = await calendarQuery({
      url: calendarUrl,
      props: DATA_PROPS,
      filters: {
        'comp-filter': {
          _attributes: { name: 'VCALENDAR' },
          'comp-filter': { _attributes: { name: 'VEVENT' }, 'prop-filter': { _attributes: { name: 'UID' }, 'text-match': { _attributes: { collation: 'i;octet' }, _text: uid } } },
        },
      },
      depth: '1',
      ...common,
    });
    const { changed } = read(res, calendarUrl, null);
    return changed.find((e) => e.uid === uid && !e.recurrenceOf) ?? changed.find((e) => e.uid === uid) ?? null;
  }
}
