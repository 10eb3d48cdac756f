/*
 * The port every calendar provider implements (CalDAV, Google Calendar, Microsoft Graph): what
 * the sync, the read API and the dispatch executor ask of a provider, in the provider-neutral
 * shape they store. A provider only speaks its wire format; what is kept, expanded, fired and
 * staged is decided above it, once for all three.
 */

export type CalendarProviderName = 'caldav' | 'google' | 'microsoft';
export type AttendeeResponse = 'accepted' | 'declined' | 'tentative' | 'needs-action';

/** One calendar of a connection, as the provider lists it. */
export type RemoteCalendar = {
  /** The provider's id: a CalDAV collection URL, a Google calendarId, a Graph calendar id. */
  remoteId: string;
  name: string;
  color: string | null;
  /** IANA zone the calendar is kept in, when the provider says. */
  timezone: string | null;
  readOnly: boolean;
  primary: boolean;
};

/**
 * One event as stored: a single event, a series' master (with its recurrence lines), or an
 * overridden / cancelled occurrence of a series (recurrenceOf + originalStart). Expanding a
 * series into occurrences happens at read time, over any range.
 */
export type RemoteEvent = {
  /** The provider's id of this event (CalDAV: the resource href, `#` + RECURRENCE-ID for an override). */
  providerEventId: string;
  uid: string | null;
  etag: string | null;
  status: 'confirmed' | 'tentative' | 'cancelled';
  title: string;
  description: string | null;
  location: string | null;
  start: Date;
  end: Date;
  allDay: boolean;
  /** The zone the event's times are written in (DST-correct expansion needs it). */
  timezone: string | null;
  attendees: Array<{ email: string; name: string | null; response: AttendeeResponse }>;
  organizer: string | null;
  /** A series' master: its RRULE, EXDATE and RDATE lines as iCalendar writes them. */
  recurrence: string[] | null;
  /** An overridden (or cancelled) instance: the provider id of its master and the start of the occurrence it replaces. */
  recurrenceOf: string | null;
  originalStart: Date | null;
  url: string | null;
};

/** What one sync call returns: changes since `cursor` (all events when the cursor was null or expired). */
export type SyncResult = {
  changed: RemoteEvent[];
  /** Provider ids of events that are gone (deleted, or no longer visible). */
  deleted: string[];
  /** Where the next incremental sync starts (sync token, delta link, sync-collection token or ctag). */
  cursor: string | null;
  /** True when this was a full listing: anything stored and not in `changed` is gone. */
  full: boolean;
};

/** An event to write: the fields the agent's tools set. */
export type EventDraft = {
  title: string;
  start: Date;
  end: Date;
  allDay?: boolean;
  timezone?: string | null;
  location?: string | null;
  description?: string | null;
  attendees?: Array<{ email: string; name?: string | null }>;
  /** Ask the provider for a video meeting where it makes one (Google Meet, Teams). */
  conference?: boolean;
};

export interface CalendarProvider {
  readonly name: CalendarProviderName;
  listCalendars(): Promise<RemoteCalendar[]>;
  sync(calendar: { remoteId: string; cursor: string | null; timezone: string | null }): Promise<SyncResult>;
  /** Creates the event; `uid` lets a retry after a crash find the one already made. */
  create(calendar: { remoteId: string }, draft: EventDraft & { uid: string }): Promise<RemoteEvent>;
  /** Changes an event only if it is still the version read (`etag`); otherwise CalendarConflict. */
  update(calendar: { remoteId: string }, event: { providerEventId: string; etag: string | null }, changes: Partial<EventDraft>): Promise<RemoteEvent>;
  /** Cancels (deletes) the event if it is still the version read; invitations are the provider's. */
  cancel(calendar: { remoteId: string }, event: { providerEventId: string; etag: string | null }, message?: string): Promise<void>;
  /** Finds an event by its iCalendar UID (reconciling a write whose answer was lost). */
  findByUid(calendar: { remoteId: string }, uid: string): Promise<RemoteEvent | null>;
  /**
   * One occurrence of a stored series changed (CalDAV: a RECURRENCE-ID override in the resource;
   * Google: a PATCH of the instance), only if the series is still the version read. Absent where
   * the provider keeps occurrences as events of their own (Graph): those are updated as events.
   */
  updateOccurrence?(calendar: { remoteId: string; timezone?: string | null }, occurrence: OccurrenceRef, changes: Partial<EventDraft>): Promise<SeriesNow>;
  /** One occurrence of a stored series cancelled (CalDAV: an EXDATE; Google: a DELETE of the instance). */
  cancelOccurrence?(calendar: { remoteId: string; timezone?: string | null }, occurrence: OccurrenceRef, message?: string): Promise<SeriesNow>;
  /** The occurrence as the provider has it now (reconciling a retried write): its override, 'cancelled', or null when the series is gone. */
  readOccurrence?(calendar: { remoteId: string; timezone?: string | null }, occurrence: OccurrenceRef): Promise<RemoteEvent | 'cancelled' | null>;
  /**
   * Push: notifications of the calendar's event changes posted to `address` with `token` (Google
   * watch channels, Graph subscriptions). `channelId` is Steward's choice where the provider takes
   * one (Google); the answer names the channel as the provider keeps it. Absent: polling only.
   */
  watch?(calendar: { remoteId: string }, o: { channelId: string; address: string; token: string; now: Date }): Promise<PushChannel>;
  /** Extends a channel where the provider can (Graph); null: it cannot, make a new one. */
  renewWatch?(channel: PushChannel, now: Date): Promise<PushChannel | null>;
  /** Stops a channel; one the provider no longer has is stopped already. */
  stopWatch?(channel: PushChannel): Promise<void>;
}

export type PushChannel = { channelId: string; resourceId: string | null; expiresAt: Date };

/** One occurrence of a stored series: the series' provider id and etag (the version read), and the occurrence's start in the series. */
export type OccurrenceRef = { providerEventId: string; etag: string | null; originalStart: Date; allDay: boolean };

/**
 * What a write of one occurrence left at the provider, for the local copy: the events it changed
 * (the override or cancelled instance, and the series' master when the write changed it too), and
 * whether `events` is the whole series (a CalDAV resource: overrides not in it are gone).
 */
export type SeriesNow = { events: RemoteEvent[]; whole: boolean; occurrenceId: string };

/** The event changed at the provider since it was read: the write did nothing. */
export class CalendarConflict extends Error {
  readonly code = 'calendar_conflict';
}

/** The provider could not be reached or refused the credentials; `reason` is the server's own words. */
export class CalendarUnreachable extends Error {
  readonly code = 'calendar_unreachable';
  constructor(readonly reason: string) {
    super(reason);
  }
}
