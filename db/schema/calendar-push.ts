import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { calendarConnections, calendars } from './calendars';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/*
 * Provider push for a selected calendar (server/calendars/push*.ts): a Google watch channel or a
 * Microsoft Graph subscription on its events, made by the periodic sync when the deployment's
 * public URL is https, renewed before it expires, stopped when the calendar is no longer read or
 * the connection goes. A notification names the channel (Google: X-Goog-Channel-ID; Graph: the
 * subscription id) and proves itself by its token / clientState, of which only a SHA-256 hash is
 * kept. `pendingSince` debounces: set by the first notification, cleared when the sync starts.
 */

export const calendarPushChannels = pgTable(
  'calendar_push_channels',
  {
    id: idColumn(),
    calendarId: text('calendar_id')
      .notNull()
      .references(() => calendars.id, { onDelete: 'cascade' }),
    connectionId: text('connection_id')
      .notNull()
      .references(() => calendarConnections.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: ['google', 'microsoft'] }).notNull(),
    /** Google: the channel id Steward chose; Graph: the subscription id Graph gave. */
    channelId: text('channel_id').notNull(),
    /** Google: the watched resource's id (channels/stop needs it); Graph: none. */
    resourceId: text('resource_id'),
    /** SHA-256 of the channel token / clientState (the secret itself is never stored). */
    tokenHash: text('token_hash').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /** A notification is waiting for its sync (set once per sync: many notifications, one sync). */
    pendingSince: ts('pending_since'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('calendar_push_channels_calendar').on(t.calendarId), uniqueIndex('calendar_push_channels_channel').on(t.provider, t.channelId), index('calendar_push_channels_connection').on(t.connectionId)],
);

export type CalendarPushChannelRow = typeof calendarPushChannels.$inferSelect;
