import { createHash } from 'node:crypto';
import type { Tx } from '@/db/client';
import type { CalendarGrantRow } from '@/db/schema';
import { ProviderHttpError } from '@/server/channels/providers';
import { withGrant, type CalendarAccessCall } from '../grants';
import { CalendarAuthError } from '../oauth-tokens';
import { CalendarConflict, CalendarUnreachable, type CalendarProvider, type EventDraft, type OccurrenceRef, type RemoteCalendar, type RemoteEvent, type SyncResult } from '../provider';
import {
  googleCalendarApiUrl,
  googleCalendarList,
  googleDeleteEvent,
  googleGetEvent,
  googleInstance,
  googleStopChannel,
  googleWatchEvents,
  googleInsertEvent,
  googlePatchEvent,
  GoogleSyncTokenExpired,
  googleSyncEvents,
  type GoogleCalendarAccess,
  type GoogleEvent,
  type SendUpdates,
} from './api';
import { fromGoogle, googleInstant, toGoogleTime } from './normalize';

/*
 * Google Calendar behind the calendar port, through the user's OAuth grant. Sync is events.list
 * with the stored sync token, falling back to a full sync when Google answers 410; deleted events
 * come back from an incremental list as `cancelled` (an id only, or a cancelled instance of a
 * series). Writes carry `sendUpdates` (invitations and cancellations are Google's) and the etag
 * read (412: CalendarConflict). An event Steward creates gets an id derived from its UID, so a
 * create repeated after a crash is answered 409 and finds the event the first one made.
 */

/** How long a watch channel is asked for (Google keeps an events channel about a week at most, and may answer a shorter one). */
const WATCH_DAYS = 7;

/** How far back a full sync reaches: older events are neither read nor fired on. */
export const FULL_SYNC_DAYS_BACK = 180;

const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';

/** Google's event id for a Steward UID: base32hex of its SHA-256 (52 characters, within Google's 5–1024). */
export function googleIdForUid(uid: string): string {
  const bytes = createHash('sha256').update(uid).digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32HEX[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** A provider answer that is not a conflict becomes what the port names: the provider could not be used, in its own words. */
function unreachable(e: unknown): never {
  if (e instanceof CalendarAuthError) throw new CalendarUnreachable(e.message);
  if (e instanceof ProviderHttpError) throw new CalendarUnreachable(e.message);
  throw e;
}

const sendUpdatesFor = (attendees: unknown[] | undefined): SendUpdates => (attendees?.length ? 'all' : 'none');

function bodyOf(draft: Partial<EventDraft>, uid: string | null): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (draft.title !== undefined) body.summary = draft.title;
  if (draft.description !== undefined) body.description = draft.description ?? '';
  if (draft.location !== undefined) body.location = draft.location ?? '';
  if (draft.start !== undefined) body.start = toGoogleTime(draft.start, draft.allDay ?? false, draft.timezone ?? null);
  if (draft.end !== undefined) body.end = toGoogleTime(draft.end, draft.allDay ?? false, draft.timezone ?? null);
  if (draft.attendees !== undefined) body.attendees = draft.attendees.map((a) => ({ email: a.email, ...(a.name ? { displayName: a.name } : {}) }));
  if (draft.conference) body.conferenceData = { createRequest: { requestId: uid ?? googleIdForUid(String(Date.now())), conferenceSolutionKey: { type: 'hangoutsMeet' } } };
  return body;
}

/** How events.instances names an occurrence: its original start, a date for an all-day series. */
const instanceStart = (ref: OccurrenceRef) => (ref.allDay ? ref.originalStart.toISOString().slice(0, 10) : ref.originalStart.toISOString());

/**
 * The instance of a series that a write of one occurrence is about, if nothing changed since it
 * was read: the series is still the version read (its etag), and the occurrence is still where
 * the series puts it and not cancelled (someone else's change to it alone leaves the series' etag).
 */
async function unchangedInstance(g: GoogleCalendarAccess, calendarId: string, ref: OccurrenceRef): Promise<GoogleEvent> {
  const master = await googleGetEvent(g, calendarId, ref.providerEventId);
  if (!master || master.status === 'cancelled') throw new CalendarConflict('The recurring event was deleted at Google Calendar since it was read');
  if (ref.etag && master.etag && master.etag !== ref.etag) throw new CalendarConflict('The recurring event changed at Google Calendar since it was read');
  const instance = await googleInstance(g, calendarId, ref.providerEventId, instanceStart(ref));
  if (!instance || instance.status === 'cancelled') throw new CalendarConflict('The occurrence is no longer part of the recurring event');
  const start = googleInstant(instance.start);
  if (!start || start.at.getTime() !== ref.originalStart.getTime()) throw new CalendarConflict('The occurrence was moved at Google Calendar since it was read');
  return instance;
}

/** `access`: how a call gets its token (the grant's, refreshed as needed, unless a caller holds one already). */
export function googleProvider(
  db: Tx,
  grant: Pick<CalendarGrantRow, 'id' | 'provider'>,
  now: () => Date = () => new Date(),
  access: CalendarAccessCall = (fn) => withGrant(db, grant, fn),
): CalendarProvider {
  const apiUrl = googleCalendarApiUrl();
  const call = <T>(fn: (g: GoogleCalendarAccess) => Promise<T>) => access((accessToken) => fn({ apiUrl, accessToken }));
  const normalize = (e: GoogleEvent, tz: string | null): RemoteEvent => {
    const r = fromGoogle(e, tz);
    if (!r) throw new CalendarUnreachable(`Google Calendar answered with event ${e.id} without usable times`);
    return r;
  };

  return {
    name: 'google',

    async listCalendars(): Promise<RemoteCalendar[]> {
      const list = await call(googleCalendarList).catch(unreachable);
      // A free/busy-only calendar cannot be listed or synced: it is not offered.
      return list
        .filter((c) => c.accessRole !== 'freeBusyReader')
        .map((c) => ({
          remoteId: c.id,
          name: c.summaryOverride ?? c.summary ?? c.id,
          color: c.backgroundColor ?? null,
          timezone: c.timeZone ?? null,
          readOnly: c.accessRole === 'reader',
          primary: c.primary === true,
        }));
    },

    async sync(calendar): Promise<SyncResult> {
      const from = new Date(now().getTime() - FULL_SYNC_DAYS_BACK * 86_400_000);
      const page = await call(async (g) => {
        try {
          return await googleSyncEvents(g, calendar.remoteId, calendar.cursor, from);
        } catch (e) {
          // Google no longer honours the token: everything again, from a full sync.
          if (e instanceof GoogleSyncTokenExpired) return googleSyncEvents(g, calendar.remoteId, null, from);
          throw e;
        }
      }).catch(unreachable);
      const tz = page.calendarTimeZone ?? calendar.timezone;
      const changed: RemoteEvent[] = [];
      const deleted: string[] = [];
      for (const e of page.events) {
        // A deleted event comes back as its id and `cancelled`; a cancelled occurrence of a series keeps its master and original start.
        if (e.status === 'cancelled' && !e.recurringEventId) {
          deleted.push(e.id);
          continue;
        }
        const r = fromGoogle(e, tz);
        if (r) changed.push(r);
      }
      return { changed, deleted, cursor: page.nextSyncToken, full: page.full };
    },

    async create(calendar, draft): Promise<RemoteEvent> {
      const id = googleIdForUid(draft.uid);
      const body = { ...bodyOf(draft, draft.uid), id };
      const made = await call(async (g) => {
        try {
          return await googleInsertEvent(g, calendar.remoteId, body, sendUpdatesFor(draft.attendees));
        } catch (e) {
          // The id is taken: an earlier attempt of this same create got through.
          if (e instanceof ProviderHttpError && e.status === 409) {
            const existing = await googleGetEvent(g, calendar.remoteId, id);
            if (existing && existing.status !== 'cancelled') return existing;
          }
          throw e;
        }
      }).catch(unreachable);
      return normalize(made, draft.timezone ?? null);
    },

    async update(calendar, event, changes): Promise<RemoteEvent> {
      const updated = await call(async (g) => {
        try {
          // The attendees hear of the change from Google (an event without attendees has no one to tell).
          return await googlePatchEvent(g, calendar.remoteId, event.providerEventId, bodyOf(changes, null), event.etag, 'all');
        } catch (e) {
          if (e instanceof ProviderHttpError && (e.status === 412 || e.status === 404 || e.status === 410)) throw new CalendarConflict(`The event changed at Google Calendar since it was read: ${e.message}`);
          throw e;
        }
      }).catch((e: unknown) => (e instanceof CalendarConflict ? Promise.reject(e) : unreachable(e)));
      return normalize(updated, changes.timezone ?? null);
    },

    async cancel(calendar, event): Promise<void> {
      await call(async (g) => {
        try {
          await googleDeleteEvent(g, calendar.remoteId, event.providerEventId, event.etag, 'all');
        } catch (e) {
          if (e instanceof ProviderHttpError && e.status === 412) throw new CalendarConflict(`The event changed at Google Calendar since it was read: ${e.message}`);
          // Already deleted (an earlier attempt whose answer was lost, or someone else): nothing is left to cancel.
          if (e instanceof ProviderHttpError && (e.status === 410 || e.status === 404)) return;
          throw e;
        }
      }).catch((e: unknown) => (e instanceof CalendarConflict ? Promise.reject(e) : unreachable(e)));
    },

    async updateOccurrence(calendar, ref, changes) {
      const patched = await call(async (g) => {
        const instance = await unchangedInstance(g, calendar.remoteId, ref);
        try {
          return await googlePatchEvent(g, calendar.remoteId, instance.id, bodyOf(changes, null), instance.etag ?? null, 'all');
        } catch (e) {
          if (e instanceof ProviderHttpError && (e.status === 412 || e.status === 404 || e.status === 410)) throw new CalendarConflict(`The occurrence changed at Google Calendar since it was read: ${e.message}`);
          throw e;
        }
      }).catch((e: unknown) => (e instanceof CalendarConflict ? Promise.reject(e) : unreachable(e)));
      return { events: [normalize(patched, changes.timezone ?? null)], whole: false, occurrenceId: patched.id };
    },

    async cancelOccurrence(calendar, ref) {
      const instance = await call(async (g) => {
        const found = await unchangedInstance(g, calendar.remoteId, ref);
        try {
          await googleDeleteEvent(g, calendar.remoteId, found.id, found.etag ?? null, 'all');
        } catch (e) {
          if (e instanceof ProviderHttpError && e.status === 412) throw new CalendarConflict(`The occurrence changed at Google Calendar since it was read: ${e.message}`);
          if (!(e instanceof ProviderHttpError && (e.status === 410 || e.status === 404))) throw e;
        }
        return found;
      }).catch((e: unknown) => (e instanceof CalendarConflict ? Promise.reject(e) : unreachable(e)));
      // What the next sync reads: the instance, cancelled (a series' cancelled occurrence keeps its place in the series).
      return { events: [{ ...normalize(instance, null), status: 'cancelled' as const }], whole: false, occurrenceId: instance.id };
    },

    async readOccurrence(calendar, ref) {
      const found = await call((g) => googleInstance(g, calendar.remoteId, ref.providerEventId, instanceStart(ref))).catch(unreachable);
      if (!found) return null;
      return found.status === 'cancelled' ? 'cancelled' : normalize(found, null);
    },

    async watch(calendar, o) {
      const expiration = new Date(o.now.getTime() + WATCH_DAYS * 86_400_000);
      const c = await call((g) => googleWatchEvents(g, calendar.remoteId, { id: o.channelId, address: o.address, token: o.token, expiration })).catch(unreachable);
      return { channelId: c.id, resourceId: c.resourceId, expiresAt: c.expiresAt };
    },

    async stopWatch(channel) {
      await call(async (g) => {
        try {
          await googleStopChannel(g, channel.channelId, channel.resourceId ?? '');
        } catch (e) {
          if (!(e instanceof ProviderHttpError && (e.status === 404 || e.status === 410))) throw e;
        }
      }).catch(unreachable);
    },

    async findByUid(calendar, uid): Promise<RemoteEvent | null> {
      const found = await call((g) => googleGetEvent(g, calendar.remoteId, googleIdForUid(uid))).catch(unreachable);
      return found && found.status !== 'cancelled' ? normalize(found, null) : null;
    },
  };
}
