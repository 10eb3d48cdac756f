import { z } from 'zod';
import type { Tx } from '@/db/client';
import type { CalendarGrantRow } from '@/db/schema';
import { graphConfig } from '@/server/channels/graph/config';
import { createSubscription, deleteSubscription, renewSubscription } from '@/server/channels/graph/subscriptions';
import { ProviderHttpError } from '@/server/channels/providers';
import { withGrant, type CalendarAccessCall } from '../grants';
import { CalendarAuthError } from '../oauth-tokens';
import { CalendarConflict, CalendarUnreachable, type CalendarProvider, type EventDraft, type RemoteCalendar, type RemoteEvent, type SyncResult } from '../provider';
import {
  graphCalendarDelta,
  graphCalendars,
  graphCancelEvent,
  graphCreateEvent,
  graphDeleteEvent,
  GraphDeltaExpired,
  graphGetEvent,
  graphFindByUid,
  graphUpdateEvent,
  uidProperty,
  type GraphCalendarAccess,
  type GraphEvent,
} from './api';
import { fromGraph, toGraphTime } from './normalize';

/*
 * Microsoft 365 calendars behind the calendar port, through the user's OAuth grant. Sync is the
 * calendar view's delta over a window (Graph has no unbounded delta in v1.0): from FULL_SYNC_DAYS_BACK
 * days ago to WINDOW_DAYS_AHEAD days ahead, begun again when Graph forgets the delta link (410) or
 * when the window's end comes within WINDOW_RENEW_DAYS of today, so the future stays covered.
 * Writes go to /me/events with the @odata.etag read as If-Match (412: CalendarConflict); Graph
 * sends the invitations. A create carries Steward's UID as its transactionId (a create repeated
 * after a crash answers the event the first one made) and as a named extended property, by which
 * findByUid finds it (Graph chooses the event's iCalUId itself).
 */

export const FULL_SYNC_DAYS_BACK = 180;
export const WINDOW_DAYS_AHEAD = 730;
const WINDOW_RENEW_DAYS = 365;
const DAY = 86_400_000;
/** A subscription on events lives at most 4,230 minutes at Graph: two days are asked for, renewed when less than one is left. */
const SUBSCRIPTION_MS = 2 * DAY;

/** The stored cursor: the delta link and the end of the window it covers. */
const Cursor = z.object({ deltaLink: z.string().min(1), until: z.string() });

const parseJson = (v: string): unknown => {
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
};

function unreachable(e: unknown): never {
  if (e instanceof CalendarConflict) throw e;
  if (e instanceof CalendarAuthError || e instanceof ProviderHttpError) throw new CalendarUnreachable(e.message);
  throw e;
}

const isConflict = (e: unknown) => e instanceof ProviderHttpError && (e.status === 412 || e.status === 409 || e.status === 404);
const conflict = (e: ProviderHttpError) => new CalendarConflict(`The event changed at Microsoft 365 since it was read: ${e.message}`);

function bodyOf(draft: Partial<EventDraft>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (draft.title !== undefined) body.subject = draft.title;
  if (draft.description !== undefined) body.body = { contentType: 'text', content: draft.description ?? '' };
  if (draft.location !== undefined) body.location = { displayName: draft.location ?? '' };
  if (draft.allDay !== undefined) body.isAllDay = draft.allDay;
  if (draft.start !== undefined) body.start = toGraphTime(draft.start, draft.allDay ?? false);
  if (draft.end !== undefined) body.end = toGraphTime(draft.end, draft.allDay ?? false);
  if (draft.attendees !== undefined) body.attendees = draft.attendees.map((a) => ({ type: 'required', emailAddress: { address: a.email, ...(a.name ? { name: a.name } : {}) } }));
  if (draft.conference) Object.assign(body, { isOnlineMeeting: true, onlineMeetingProvider: 'teamsForBusiness' });
  return body;
}

/** `access`: how a call gets its token (the grant's, refreshed as needed, unless a caller holds one already). */
export function graphProvider(
  db: Tx,
  grant: Pick<CalendarGrantRow, 'id' | 'provider'>,
  now: () => Date = () => new Date(),
  access: CalendarAccessCall = (fn) => withGrant(db, grant, fn),
): CalendarProvider {
  const call = <T>(fn: (g: GraphCalendarAccess) => Promise<T>) => access((accessToken) => fn({ cfg: graphConfig(), accessToken }));
  const normalize = (e: GraphEvent): RemoteEvent => {
    const r = fromGraph(e);
    if (!r) throw new CalendarUnreachable(`Microsoft Graph answered with event ${e.id} without usable times`);
    return r;
  };

  return {
    name: 'microsoft',

    async listCalendars(): Promise<RemoteCalendar[]> {
      const list = await call(graphCalendars).catch(unreachable);
      return list.map((c) => ({
        remoteId: c.id,
        name: c.name ?? c.id,
        color: c.hexColor || null,
        timezone: null,
        readOnly: c.canEdit === false,
        primary: c.isDefaultCalendar === true,
      }));
    },

    async sync(calendar): Promise<SyncResult> {
      const at = now();
      const stored = calendar.cursor ? Cursor.safeParse(parseJson(calendar.cursor)) : null;
      const current = stored?.success && Date.parse(stored.data.until) - at.getTime() > WINDOW_RENEW_DAYS * DAY ? stored.data : null;
      const window = { from: new Date(at.getTime() - FULL_SYNC_DAYS_BACK * DAY), to: new Date(at.getTime() + WINDOW_DAYS_AHEAD * DAY) };
      const round = await call(async (g) => {
        if (current) {
          try {
            return { ...(await graphCalendarDelta(g, calendar.remoteId, current.deltaLink, window)), until: current.until };
          } catch (e) {
            // Graph forgot the round: a new one over the window.
            if (!(e instanceof GraphDeltaExpired)) throw e;
          }
        }
        return { ...(await graphCalendarDelta(g, calendar.remoteId, null, window)), until: window.to.toISOString() };
      }).catch(unreachable);
      const changed = round.changed.map(fromGraph).filter((r): r is RemoteEvent => r !== null);
      return { changed, deleted: round.removed, cursor: JSON.stringify({ deltaLink: round.deltaLink, until: round.until }), full: round.full };
    },

    async create(calendar, draft): Promise<RemoteEvent> {
      const made = await call((g) => graphCreateEvent(g, calendar.remoteId, { ...bodyOf(draft), transactionId: draft.uid, ...uidProperty(draft.uid) })).catch(unreachable);
      return normalize(made);
    },

    async update(_calendar, event, changes): Promise<RemoteEvent> {
      const updated = await call(async (g) => {
        try {
          return await graphUpdateEvent(g, event.providerEventId, bodyOf(changes), event.etag);
        } catch (e) {
          if (isConflict(e)) throw conflict(e as ProviderHttpError);
          throw e;
        }
      }).catch(unreachable);
      return normalize(updated);
    },

    async cancel(_calendar, event, message): Promise<void> {
      await call(async (g) => {
        const current = await graphGetEvent(g, event.providerEventId);
        // Gone already (an earlier attempt whose answer was lost, or someone else): nothing is left to cancel.
        if (!current) return;
        if (event.etag && current['@odata.etag'] && current['@odata.etag'] !== event.etag) throw new CalendarConflict('The event changed at Microsoft 365 since it was read');
        try {
          // The organizer cancels the meeting (Graph tells the attendees, with the message); anyone else removes it from their calendar.
          if (current.isOrganizer && (current.attendees?.length ?? 0) > 0) await graphCancelEvent(g, event.providerEventId, message ?? null);
          else await graphDeleteEvent(g, event.providerEventId, current['@odata.etag'] ?? event.etag);
        } catch (e) {
          if (e instanceof ProviderHttpError && e.status === 404) return;
          if (e instanceof ProviderHttpError && (e.status === 412 || e.status === 409)) throw conflict(e);
          throw e;
        }
      }).catch(unreachable);
    },

    async watch(calendar, o) {
      const expiresAt = new Date(o.now.getTime() + SUBSCRIPTION_MS).toISOString();
      const made = await call((g) =>
        createSubscription(g, { resource: `me/calendars/${encodeURIComponent(calendar.remoteId)}/events`, changeType: 'created,updated,deleted', notificationUrl: o.address, clientState: o.token, expiresAt }),
      ).catch(unreachable);
      return { channelId: made.id, resourceId: null, expiresAt: made.expiresAt };
    },

    async renewWatch(channel, at) {
      return call(async (g) => {
        try {
          const renewed = await renewSubscription(g, channel.channelId, at, new Date(at.getTime() + SUBSCRIPTION_MS).toISOString());
          return { ...channel, expiresAt: renewed.expiresAt };
        } catch (e) {
          // Graph no longer has it: a new one is made.
          if (e instanceof ProviderHttpError && e.status === 404) return null;
          throw e;
        }
      }).catch(unreachable);
    },

    async stopWatch(channel) {
      await call(async (g) => {
        try {
          await deleteSubscription(g, channel.channelId);
        } catch (e) {
          if (!(e instanceof ProviderHttpError && e.status === 404)) throw e;
        }
      }).catch(unreachable);
    },

    async findByUid(calendar, uid): Promise<RemoteEvent | null> {
      const found = await call((g) => graphFindByUid(g, calendar.remoteId, uid)).catch(unreachable);
      return found && !found.isCancelled ? normalize(found) : null;
    },
  };
}
