import { z } from 'zod';
import { ProviderHttpError, providerFetch } from '@/server/channels/providers';
import { TOTAL_MS } from '@/server/http/outbound-timeouts';

/*
 * The Google Calendar API v3 calls Steward makes, every answer parsed with Zod: the calendar
 * list, events.list as a sync (a full sync, then incremental ones from the stored syncToken;
 * 410 means Google no longer honours the token), events.get/insert/patch/delete (writes carry
 * `sendUpdates`, so invitations are Google's, and `If-Match` with the etag Steward last read:
 * 412 means someone changed the event since), and freeBusy.
 */

export const GOOGLE_CALENDAR_API_URL = 'https://www.googleapis.com/calendar/v3';

/** STEWARD_GOOGLE_CALENDAR_API_URL (spec 6), without a trailing slash. */
export const googleCalendarApiUrl = (env: Record<string, string | undefined> = process.env) => (env.STEWARD_GOOGLE_CALENDAR_API_URL ?? GOOGLE_CALENDAR_API_URL).replace(/\/+$/, '');

export type GoogleCalendarAccess = { apiUrl: string; accessToken: string };

const PROVIDER = 'Google Calendar';
const GoogleError = z.object({ error: z.object({ message: z.string().optional(), errors: z.array(z.object({ reason: z.string().optional() }).loose()).optional() }).loose() }).loose();

async function refusal(res: Response, what: string): Promise<ProviderHttpError> {
  const e = GoogleError.safeParse(await res.json().catch(() => null));
  const reason = e.success ? (e.data.error.errors?.[0]?.reason ?? null) : null;
  const message = e.success ? e.data.error.message : undefined;
  return new ProviderHttpError(PROVIDER, res.status, reason, `${PROVIDER} answered ${res.status} to ${what}${message ? `: ${message}` : ''}`, true);
}

async function request(g: GoogleCalendarAccess, method: string, path: string, init: { body?: unknown; ifMatch?: string | null } = {}): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${g.accessToken}`, Accept: 'application/json' };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  if (init.ifMatch) headers['If-Match'] = init.ifMatch;
  const res = await providerFetch(PROVIDER, `${g.apiUrl}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }, TOTAL_MS.mailbox);
  if (!res.ok) throw await refusal(res, `${method} ${path.replace(/\?.*$/, '')}`);
  return res;
}

async function json<S extends z.ZodType>(res: Response, schema: S, what: string): Promise<z.output<S>> {
  const parsed = schema.safeParse(await res.json().catch(() => null));
  if (!parsed.success) throw new ProviderHttpError(PROVIDER, res.status, 'invalid_response', `${PROVIDER}'s answer to ${what} was not what its API documents`, true);
  return parsed.data;
}

const seg = (v: string) => encodeURIComponent(v);

const ListEntry = z
  .object({
    id: z.string().min(1),
    summary: z.string().optional(),
    summaryOverride: z.string().optional(),
    backgroundColor: z.string().optional(),
    accessRole: z.enum(['freeBusyReader', 'reader', 'writer', 'owner']),
    primary: z.boolean().optional(),
    timeZone: z.string().optional(),
    deleted: z.boolean().optional(),
  })
  .loose();
export type GoogleCalendarListEntry = z.output<typeof ListEntry>;
const CalendarListPage = z.object({ items: z.array(ListEntry).default([]), nextPageToken: z.string().optional() }).loose();

/** Every calendar in the user's list (their own and those shared with them), every page. */
export async function googleCalendarList(g: GoogleCalendarAccess): Promise<GoogleCalendarListEntry[]> {
  const out: GoogleCalendarListEntry[] = [];
  let pageToken: string | undefined;
  for (let i = 0; i < 50; i++) {
    const q = new URLSearchParams({ maxResults: '250', ...(pageToken ? { pageToken } : {}) });
    const page = await json(await request(g, 'GET', `/users/me/calendarList?${q}`), CalendarListPage, 'calendarList.list');
    out.push(...page.items.filter((c) => !c.deleted));
    if (!page.nextPageToken) return out;
    pageToken = page.nextPageToken;
  }
  return out;
}

const When = z.object({ dateTime: z.string().optional(), date: z.string().optional(), timeZone: z.string().optional() }).loose();
const Person = z.object({ email: z.string().optional(), displayName: z.string().optional(), self: z.boolean().optional() }).loose();
export const GoogleEventSchema = z
  .object({
    id: z.string().min(1),
    etag: z.string().optional(),
    status: z.enum(['confirmed', 'tentative', 'cancelled']).optional(),
    iCalUID: z.string().optional(),
    summary: z.string().optional(),
    description: z.string().optional(),
    location: z.string().optional(),
    start: When.optional(),
    end: When.optional(),
    recurrence: z.array(z.string()).optional(),
    recurringEventId: z.string().optional(),
    originalStartTime: When.optional(),
    transparency: z.string().optional(),
    organizer: Person.optional(),
    creator: Person.optional(),
    attendees: z.array(Person.extend({ responseStatus: z.string().optional(), organizer: z.boolean().optional() }).loose()).optional(),
    hangoutLink: z.string().optional(),
    htmlLink: z.string().optional(),
    updated: z.string().optional(),
    sequence: z.number().optional(),
  })
  .loose();
export type GoogleEvent = z.output<typeof GoogleEventSchema>;
const EventsPage = z.object({ items: z.array(GoogleEventSchema).default([]), nextPageToken: z.string().optional(), nextSyncToken: z.string().optional(), timeZone: z.string().optional() }).loose();

/** Google no longer honours the stored sync token (410 Gone): only a full sync helps. */
export class GoogleSyncTokenExpired extends Error {}

export type GoogleSyncPage = { events: GoogleEvent[]; nextSyncToken: string; full: boolean; calendarTimeZone: string | null };

/**
 * One sync of a calendar's events, every page followed to the nextSyncToken: incremental from
 * `syncToken` (changes only, deleted events as `status: cancelled`), or a full sync from
 * `fullFrom` on (recurring events as their masters and overridden instances, not expanded).
 */
export async function googleSyncEvents(g: GoogleCalendarAccess, calendarId: string, syncToken: string | null, fullFrom: Date, maxPages = 200): Promise<GoogleSyncPage> {
  const events: GoogleEvent[] = [];
  let pageToken: string | undefined;
  let calendarTimeZone: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const q = new URLSearchParams({ maxResults: '2500', ...(syncToken ? { syncToken } : { timeMin: fullFrom.toISOString(), showDeleted: 'false' }), ...(pageToken ? { pageToken } : {}) });
    let res: Response;
    try {
      res = await request(g, 'GET', `/calendars/${seg(calendarId)}/events?${q}`);
    } catch (e) {
      if (syncToken && e instanceof ProviderHttpError && e.status === 410) throw new GoogleSyncTokenExpired(e.message);
      throw e;
    }
    const page = await json(res, EventsPage, 'events.list');
    events.push(...page.items);
    calendarTimeZone = page.timeZone ?? calendarTimeZone;
    if (page.nextSyncToken) return { events, nextSyncToken: page.nextSyncToken, full: !syncToken, calendarTimeZone };
    if (!page.nextPageToken) throw new ProviderHttpError(PROVIDER, 200, 'invalid_response', 'a page of events.list had neither a nextPageToken nor a nextSyncToken', true);
    pageToken = page.nextPageToken;
  }
  throw new ProviderHttpError(PROVIDER, 200, 'too_many_pages', `events.list of ${calendarId} did not end within ${maxPages} pages`, true);
}

export type SendUpdates = 'all' | 'externalOnly' | 'none';

/**
 * events.instances narrowed by `originalStart`: the one instance of a recurring event that the
 * series starts at that time (RFC 3339, or a date for an all-day series), as Google has it now
 * (moved, changed or cancelled: `showDeleted`); null when the series has no such occurrence or is gone.
 */
export async function googleInstance(g: GoogleCalendarAccess, calendarId: string, eventId: string, originalStart: string): Promise<GoogleEvent | null> {
  const q = new URLSearchParams({ originalStart, showDeleted: 'true', maxResults: '1' });
  try {
    const page = await json(await request(g, 'GET', `/calendars/${seg(calendarId)}/events/${seg(eventId)}/instances?${q}`), EventsPage, 'events.instances');
    return page.items[0] ?? null;
  } catch (e) {
    if (e instanceof ProviderHttpError && (e.status === 404 || e.status === 410)) return null;
    throw e;
  }
}

export async function googleGetEvent(g: GoogleCalendarAccess, calendarId: string, eventId: string): Promise<GoogleEvent | null> {
  try {
    return await json(await request(g, 'GET', `/calendars/${seg(calendarId)}/events/${seg(eventId)}`), GoogleEventSchema, 'events.get');
  } catch (e) {
    if (e instanceof ProviderHttpError && (e.status === 404 || e.status === 410)) return null;
    throw e;
  }
}

/** events.insert; with an `id` of Steward's choosing, a repeat of the same insert is answered 409 instead of making a second event. */
export async function googleInsertEvent(g: GoogleCalendarAccess, calendarId: string, body: Record<string, unknown>, sendUpdates: SendUpdates): Promise<GoogleEvent> {
  const q = new URLSearchParams({ sendUpdates, conferenceDataVersion: '1' });
  return json(await request(g, 'POST', `/calendars/${seg(calendarId)}/events?${q}`, { body }), GoogleEventSchema, 'events.insert');
}

/** events.patch with If-Match (412: the event changed since `etag` was read). */
export async function googlePatchEvent(g: GoogleCalendarAccess, calendarId: string, eventId: string, body: Record<string, unknown>, etag: string | null, sendUpdates: SendUpdates): Promise<GoogleEvent> {
  const q = new URLSearchParams({ sendUpdates, conferenceDataVersion: '1' });
  return json(await request(g, 'PATCH', `/calendars/${seg(calendarId)}/events/${seg(eventId)}?${q}`, { body, ifMatch: etag }), GoogleEventSchema, 'events.patch');
}

/** events.delete with If-Match; Google tells the attendees when `sendUpdates` says so. */
export async function googleDeleteEvent(g: GoogleCalendarAccess, calendarId: string, eventId: string, etag: string | null, sendUpdates: SendUpdates): Promise<void> {
  await request(g, 'DELETE', `/calendars/${seg(calendarId)}/events/${seg(eventId)}?${new URLSearchParams({ sendUpdates })}`, { ifMatch: etag });
}

const Busy = z.object({ start: z.string(), end: z.string() });
const FreeBusyAnswer = z.object({ calendars: z.record(z.string(), z.object({ busy: z.array(Busy).default([]), errors: z.array(z.unknown()).optional() }).loose()) }).loose();

/** freeBusy.query over the given calendars: each calendar's busy intervals (a calendar Google could not read is left out). */
export async function googleFreeBusy(g: GoogleCalendarAccess, calendarIds: string[], from: Date, to: Date): Promise<Array<{ calendarId: string; start: Date; end: Date }>> {
  const answer = await json(
    await request(g, 'POST', '/freeBusy', { body: { timeMin: from.toISOString(), timeMax: to.toISOString(), items: calendarIds.map((id) => ({ id })) } }),
    FreeBusyAnswer,
    'freeBusy.query',
  );
  return Object.entries(answer.calendars).flatMap(([calendarId, c]) => (c.errors?.length ? [] : c.busy.map((b) => ({ calendarId, start: new Date(b.start), end: new Date(b.end) }))));
}

const Channel = z.object({ id: z.string().min(1), resourceId: z.string().min(1), expiration: z.union([z.string(), z.number()]).optional() }).loose();

/** events.watch: Google posts to `address` (https) whenever the calendar's events change, each notification with `token`, until `expiration`. */
export async function googleWatchEvents(g: GoogleCalendarAccess, calendarId: string, o: { id: string; address: string; token: string; expiration: Date }): Promise<{ id: string; resourceId: string; expiresAt: Date }> {
  const body = { id: o.id, type: 'web_hook', address: o.address, token: o.token, expiration: String(o.expiration.getTime()) };
  const c = await json(await request(g, 'POST', `/calendars/${seg(calendarId)}/events/watch`, { body }), Channel, 'events.watch');
  const at = c.expiration !== undefined ? new Date(Number(c.expiration)) : o.expiration;
  return { id: c.id, resourceId: c.resourceId, expiresAt: Number.isNaN(at.getTime()) ? o.expiration : at };
}

/** channels.stop: no more notifications on that channel (one Google no longer has answers 404). */
export async function googleStopChannel(g: GoogleCalendarAccess, id: string, resourceId: string): Promise<void> {
  await request(g, 'POST', '/channels/stop', { body: { id, resourceId } });
}
