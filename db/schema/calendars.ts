import { boolean, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { calendarGrants } from './calendar-grants';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

/*
 * A user's calendars as Steward keeps them (spec 6, Calendars): a connection per provider account
 * (CalDAV by URL, username and a sealed app password; Google and Microsoft through an OAuth grant),
 * its calendars, and a local copy of their events kept fresh by the sync, so reads, free/busy and
 * triggers never wait for a provider.
 */

export const calendarProviders = ['caldav', 'google', 'microsoft'] as const;
export const calendarConnectionStatuses = ['active', 'failing', 'revoked'] as const;

export const calendarConnections = pgTable(
  'calendar_connections',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: calendarProviders }).notNull(),
    /** CalDAV: the URL the user gave (discovery starts there). */
    url: text('url'),
    username: text('username'),
    /** CalDAV: the app password, sealed (server/secrets/sealed.ts); never returned. */
    secret: text('secret'),
    /** Google / Microsoft: the OAuth grant the calls go through. */
    grantId: text('grant_id').references(() => calendarGrants.id, { onDelete: 'cascade' }),
    status: text('status', { enum: calendarConnectionStatuses }).notNull().default('active'),
    lastSyncedAt: ts('last_synced_at'),
    lastSyncError: text('last_sync_error'),
    /** Since when every sync failed (7 days of it: waiting tasks go to failed_access). */
    failingSince: ts('failing_since'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('calendar_connections_user').on(t.userId), index('calendar_connections_due').on(t.lastSyncedAt)],
);

export const calendars = pgTable(
  'calendars',
  {
    id: idColumn(),
    connectionId: text('connection_id')
      .notNull()
      .references(() => calendarConnections.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    remoteId: text('remote_id').notNull(),
    name: text('name').notNull(),
    color: text('color'),
    timezone: text('timezone'),
    readOnly: boolean('read_only').notNull().default(false),
    primary: boolean('primary').notNull().default(false),
    /** Where the next incremental sync starts (sync token, delta link, sync-collection token, ctag). */
    syncCursor: text('sync_cursor'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('calendars_connection_remote').on(t.connectionId, t.remoteId), index('calendars_user').on(t.userId)],
);

/**
 * Events as the provider has them (server/calendars/provider.ts RemoteEvent): single events,
 * series masters with their recurrence lines, and overridden or cancelled occurrences. A series is
 * expanded at read time; `rangeStart`/`rangeEnd` bound where a row can produce occurrences (a
 * master without an end: null), so a window query reads only rows that can matter.
 */
export const calendarEvents = pgTable(
  'calendar_events',
  {
    id: idColumn(),
    calendarId: text('calendar_id')
      .notNull()
      .references(() => calendars.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    providerEventId: text('provider_event_id').notNull(),
    uid: text('uid'),
    etag: text('etag'),
    status: text('status', { enum: ['confirmed', 'tentative', 'cancelled'] }).notNull().default('confirmed'),
    title: text('title').notNull().default(''),
    description: text('description'),
    location: text('location'),
    start: ts('start').notNull(),
    end: ts('end').notNull(),
    allDay: boolean('all_day').notNull().default(false),
    timezone: text('timezone'),
    attendees: jsonb('attendees').$type<Array<{ email: string; name: string | null; response: string }>>().notNull().default([]),
    organizer: text('organizer'),
    recurrence: text('recurrence').array(),
    recurrenceOf: text('recurrence_of'),
    originalStart: ts('original_start'),
    url: text('url'),
    /** The last instant this row can cover (a series' last occurrence's end; null: it never ends). */
    rangeEnd: ts('range_end'),
    /** Made by the assistant (a calendar dispatch): reminders at level svc-events are for these. */
    madeByAssistant: boolean('made_by_assistant').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('calendar_events_calendar_remote').on(t.calendarId, t.providerEventId),
    index('calendar_events_user_window').on(t.userId, t.start, t.rangeEnd),
    index('calendar_events_uid').on(t.calendarId, t.uid),
    // The reminder sweep reads every user's rows that can still produce an occurrence
    // (range_end null or after now, start before the horizon): no user to lead with.
    index('calendar_events_reminder_window').on(t.rangeEnd, t.start),
    // A series' overrides, read beside the series when its occurrences are expanded.
    index('calendar_events_series').on(t.calendarId, t.recurrenceOf),
  ],
);

export type CalendarConnectionRow = typeof calendarConnections.$inferSelect;
export type CalendarRow = typeof calendars.$inferSelect;
export type CalendarEventRow = typeof calendarEvents.$inferSelect;
