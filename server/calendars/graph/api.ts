import { z } from 'zod';
import type { GraphConfig } from '@/server/channels/graph/config';
import { ProviderHttpError, providerFetch } from '@/server/channels/providers';
import { TOTAL_MS } from '@/server/http/outbound-timeouts';

/*
 * The Microsoft Graph v1.0 calendar calls Steward makes for the signed-in user, every answer
 * parsed with Zod: the calendars, each calendar's calendarView delta (a round over a fixed
 * window: occurrences of recurring series come expanded, with their exceptions; @removed for
 * events that were deleted or left the window; 410 once Graph forgets the delta token), and
 * events created, read, changed and deleted (`If-Match` with the @odata.etag Steward last read:
 * 412 means someone changed it since) or cancelled by their organizer with a message. Times are
 * asked for in UTC (`Prefer: outlook.timezone`), ids immutable.
 */

const PROVIDER = 'Microsoft Graph';
const PREFER = ['outlook.timezone="UTC"', 'IdType="ImmutableId"'];

export type GraphCalendarAccess = { cfg: GraphConfig; accessToken: string };

const GraphError = z.object({ error: z.object({ code: z.string().optional(), message: z.string().optional() }).loose() }).loose();

async function refusal(res: Response, what: string): Promise<ProviderHttpError> {
  const e = GraphError.safeParse(await res.json().catch(() => null));
  const code = e.success ? (e.data.error.code ?? null) : null;
  return new ProviderHttpError(PROVIDER, res.status, code, `${PROVIDER} answered ${res.status} to ${what}${e.success && e.data.error.message ? `: ${e.data.error.message}` : ''}`, true);
}

/** A link Graph handed back (nextLink, deltaLink) is followed only under the configured Graph URL: the bearer token goes nowhere else. */
function ownLink(cfg: GraphConfig, link: string): string {
  if (!link.startsWith(`${cfg.graphUrl}/`)) throw new ProviderHttpError(PROVIDER, null, 'foreign_link', 'Microsoft Graph answered with a link outside its own URL; it was not followed', true);
  return link;
}

async function request(g: GraphCalendarAccess, method: string, pathOrUrl: string, init: { body?: unknown; ifMatch?: string | null; prefer?: string[] } = {}): Promise<Response> {
  const url = pathOrUrl.startsWith('http') ? ownLink(g.cfg, pathOrUrl) : `${g.cfg.graphUrl}${pathOrUrl}`;
  const headers: Record<string, string> = { Authorization: `Bearer ${g.accessToken}`, Prefer: [...PREFER, ...(init.prefer ?? [])].join(', ') };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  if (init.ifMatch) headers['If-Match'] = init.ifMatch;
  const res = await providerFetch(PROVIDER, url, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }, TOTAL_MS.mailbox);
  if (!res.ok) throw await refusal(res, `${method} ${new URL(url).pathname}`);
  return res;
}

async function json<S extends z.ZodType>(res: Response, schema: S, what: string): Promise<z.output<S>> {
  const parsed = schema.safeParse(await res.json().catch(() => null));
  if (!parsed.success) throw new ProviderHttpError(PROVIDER, res.status, 'invalid_response', `${PROVIDER}'s answer to ${what} was not what its API documents`, true);
  return parsed.data;
}

const seg = (v: string) => encodeURIComponent(v);

const CalendarSchema = z
  .object({ id: z.string().min(1), name: z.string().optional(), hexColor: z.string().optional(), color: z.string().optional(), isDefaultCalendar: z.boolean().optional(), canEdit: z.boolean().optional() })
  .loose();
export type GraphCalendar = z.output<typeof CalendarSchema>;
const Page = <S extends z.ZodType>(item: S) => z.object({ value: z.array(item), '@odata.nextLink': z.string().optional(), '@odata.deltaLink': z.string().optional() }).loose();

/** The user's calendars, every page. */
export async function graphCalendars(g: GraphCalendarAccess): Promise<GraphCalendar[]> {
  const out: GraphCalendar[] = [];
  let next = '/me/calendars?$top=100';
  for (let i = 0; i < 50; i++) {
    const page = await json(await request(g, 'GET', next), Page(CalendarSchema), 'GET /me/calendars');
    out.push(...page.value);
    if (!page['@odata.nextLink']) return out;
    next = ownLink(g.cfg, page['@odata.nextLink']);
  }
  return out;
}

const When = z.object({ dateTime: z.string(), timeZone: z.string().optional() }).loose();
const Address = z.object({ emailAddress: z.object({ name: z.string().nullable().optional(), address: z.string().nullable().optional() }).loose() }).loose();
export const GraphEventSchema = z
  .object({
    id: z.string().min(1),
    '@odata.etag': z.string().optional(),
    '@removed': z.unknown().optional(),
    iCalUId: z.string().nullable().optional(),
    subject: z.string().nullable().optional(),
    body: z.object({ contentType: z.string().optional(), content: z.string().nullable().optional() }).loose().nullable().optional(),
    bodyPreview: z.string().nullable().optional(),
    start: When.nullable().optional(),
    end: When.nullable().optional(),
    originalStartTimeZone: z.string().nullable().optional(),
    isAllDay: z.boolean().nullable().optional(),
    isCancelled: z.boolean().nullable().optional(),
    showAs: z.string().nullable().optional(),
    type: z.string().nullable().optional(),
    seriesMasterId: z.string().nullable().optional(),
    /** An occurrence or exception: the start of the occurrence it is (DateTimeOffset). */
    originalStart: z.string().nullable().optional(),
    location: z.object({ displayName: z.string().nullable().optional() }).loose().nullable().optional(),
    attendees: z.array(Address.extend({ status: z.object({ response: z.string().nullable().optional() }).loose().nullable().optional(), type: z.string().nullable().optional() }).loose()).nullable().optional(),
    organizer: Address.nullable().optional(),
    isOrganizer: z.boolean().nullable().optional(),
    onlineMeeting: z.object({ joinUrl: z.string().nullable().optional() }).loose().nullable().optional(),
    webLink: z.string().nullable().optional(),
    transactionId: z.string().nullable().optional(),
  })
  .loose();
export type GraphEvent = z.output<typeof GraphEventSchema>;

/** Graph no longer honours the stored delta link (410 Gone): a new round over the window is needed. */
export class GraphDeltaExpired extends Error {}

export type GraphDeltaRound = { changed: GraphEvent[]; removed: string[]; deltaLink: string; full: boolean };

/**
 * One round of a calendar's calendarView delta, every page followed to the deltaLink: from the
 * stored deltaLink (changes only), or a first round over [from, to).
 */
export async function graphCalendarDelta(g: GraphCalendarAccess, calendarId: string, deltaLink: string | null, window: { from: Date; to: Date }, maxPages = 500): Promise<GraphDeltaRound> {
  let next = deltaLink ?? `/me/calendars/${seg(calendarId)}/calendarView/delta?${new URLSearchParams({ startDateTime: window.from.toISOString(), endDateTime: window.to.toISOString() })}`;
  const changed: GraphEvent[] = [];
  const removed: string[] = [];
  for (let i = 0; i < maxPages; i++) {
    let res: Response;
    try {
      res = await request(g, 'GET', next, { prefer: ['odata.maxpagesize=200'] });
    } catch (e) {
      if (deltaLink && e instanceof ProviderHttpError && e.status === 410) throw new GraphDeltaExpired(e.message);
      throw e;
    }
    const page = await json(res, Page(GraphEventSchema), 'the calendar view delta');
    for (const ev of page.value) {
      if (ev['@removed'] !== undefined) removed.push(ev.id);
      else changed.push(ev);
    }
    if (page['@odata.deltaLink']) return { changed, removed, deltaLink: ownLink(g.cfg, page['@odata.deltaLink']), full: !deltaLink };
    if (!page['@odata.nextLink']) throw new ProviderHttpError(PROVIDER, 200, 'invalid_response', 'a page of the calendar view delta had neither a nextLink nor a deltaLink', true);
    next = ownLink(g.cfg, page['@odata.nextLink']);
  }
  throw new ProviderHttpError(PROVIDER, 200, 'too_many_pages', `the calendar view delta of ${calendarId} did not end within ${maxPages} pages`, true);
}

export async function graphGetEvent(g: GraphCalendarAccess, eventId: string): Promise<GraphEvent | null> {
  try {
    return await json(await request(g, 'GET', `/me/events/${seg(eventId)}`), GraphEventSchema, 'GET /me/events/{id}');
  } catch (e) {
    if (e instanceof ProviderHttpError && e.status === 404) return null;
    throw e;
  }
}

/** Creates an event in a calendar; Graph sends the invitations. `transactionId` makes a repeated create answer the first one's event. */
export async function graphCreateEvent(g: GraphCalendarAccess, calendarId: string, body: Record<string, unknown>): Promise<GraphEvent> {
  return json(await request(g, 'POST', `/me/calendars/${seg(calendarId)}/events`, { body }), GraphEventSchema, 'POST /me/calendars/{id}/events');
}

/**
 * Steward's UID of an event it created, kept on the event as a named extended property (Graph
 * chooses an event's iCalUId itself): the documented way to tag an item and find it again.
 */
export const UID_PROPERTY = 'String {00020329-0000-0000-C000-000000000046} Name StewardUid';

export const uidProperty = (uid: string) => ({ singleValueExtendedProperties: [{ id: UID_PROPERTY, value: uid }] });

/** The event of a calendar tagged with this UID, if there is one. */
export async function graphFindByUid(g: GraphCalendarAccess, calendarId: string, uid: string): Promise<GraphEvent | null> {
  const q = (v: string) => v.replace(/'/g, "''");
  const params = new URLSearchParams({ $filter: `singleValueExtendedProperties/Any(ep: ep/id eq '${q(UID_PROPERTY)}' and ep/value eq '${q(uid)}')`, $top: '1' });
  const page = await json(await request(g, 'GET', `/me/calendars/${seg(calendarId)}/events?${params}`), Page(GraphEventSchema), 'GET /me/calendars/{id}/events by UID');
  return page.value[0] ?? null;
}

/** PATCH with If-Match (412: the event changed since `etag` was read); Graph tells the attendees. */
export async function graphUpdateEvent(g: GraphCalendarAccess, eventId: string, body: Record<string, unknown>, etag: string | null): Promise<GraphEvent> {
  return json(await request(g, 'PATCH', `/me/events/${seg(eventId)}`, { body, ifMatch: etag }), GraphEventSchema, 'PATCH /me/events/{id}');
}

export async function graphDeleteEvent(g: GraphCalendarAccess, eventId: string, etag: string | null): Promise<void> {
  await request(g, 'DELETE', `/me/events/${seg(eventId)}`, { ifMatch: etag });
}

/** The organizer cancels a meeting: Graph sends the cancellation, with the message, to the attendees, and removes it. */
export async function graphCancelEvent(g: GraphCalendarAccess, eventId: string, comment: string | null): Promise<void> {
  await request(g, 'POST', `/me/events/${seg(eventId)}/cancel`, { body: comment ? { Comment: comment } : {} });
}
