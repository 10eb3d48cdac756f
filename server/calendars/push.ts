import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { calendarPushChannels, calendars, type CalendarConnectionRow, type CalendarPushChannelRow, type CalendarRow } from '@/db/schema';
import { hashSecret } from '@/server/access/keys';
import { publicOrigin } from '@/server/http/public-origin';
import { logger } from '@/server/logger';
import type { CalendarProvider, PushChannel } from './provider';
import { isSelected } from './selection';

/*
 * Provider push for the calendars read (spec 6: "on provider push where available"): a Google
 * watch channel or a Graph subscription per selected calendar, made and renewed by the periodic
 * sync, stopped by the change that ends it (a calendar no longer read, a connection removed). Only
 * when the deployment's public URL is https (both providers post only to https addresses); a
 * provider that refuses leaves that calendar to polling, which goes on in every case (a lost
 * notification is caught by the next poll). A notification (./push-notifications.ts) starts that
 * calendar's sync through the engine; the channel's token is kept as a SHA-256 hash only.
 */

export const PUSH_PATHS = { google: '/calendars/push/google', microsoft: '/calendars/push/microsoft' } as const;
type PushProvider = keyof typeof PUSH_PATHS;

/** Renewed when less than this is left (the periodic sync runs every few minutes). */
const RENEW_WITHIN_MS = 86_400_000;

/** Where a provider posts notifications, or null when the public URL is not https (no push then). */
export function pushAddress(provider: string): string | null {
  if (provider !== 'google' && provider !== 'microsoft') return null;
  const { origin, secure } = publicOrigin();
  return secure && origin.startsWith('https://') ? `${origin}/api${PUSH_PATHS[provider as PushProvider]}` : null;
}

const channelOf = (row: CalendarPushChannelRow): PushChannel => ({ channelId: row.channelId, resourceId: row.resourceId, expiresAt: row.expiresAt });

/** A channel whose row is gone stopped at the provider; a failure is logged (no row names it, so its notifications are refused until it expires). */
async function stopChannel(provider: CalendarProvider | null, row: CalendarPushChannelRow) {
  try {
    if (!provider?.stopWatch) throw new Error('no provider to stop it with');
    await provider.stopWatch(channelOf(row));
  } catch (err) {
    logger.warn({ err, calendarId: row.calendarId, connectionId: row.connectionId }, 'calendar push: a channel could not be stopped (it expires by itself)');
  }
}

async function stop(db: Db, provider: CalendarProvider, row: CalendarPushChannelRow) {
  await db.delete(calendarPushChannels).where(eq(calendarPushChannels.id, row.id));
  await stopChannel(provider, row);
}

/**
 * The connection's channels made, renewed or stopped, as the calendars read and the public URL
 * now say. Never throws: a calendar whose channel cannot be kept stays with polling.
 */
export async function keepPush(db: Db, connection: Pick<CalendarConnectionRow, 'id' | 'provider'>, list: CalendarRow[], provider: CalendarProvider, selected: string[], now: Date): Promise<void> {
  const address = pushAddress(connection.provider);
  const rows = await db.select().from(calendarPushChannels).where(eq(calendarPushChannels.connectionId, connection.id));
  const wanted = address && provider.watch ? list.filter((c) => isSelected(selected, c.id)) : [];
  for (const row of rows) if (!wanted.some((c) => c.id === row.calendarId)) await stop(db, provider, row);
  for (const calendar of wanted) {
    const row = rows.find((r) => r.calendarId === calendar.id) ?? null;
    try {
      if (row && row.expiresAt.getTime() - now.getTime() > RENEW_WITHIN_MS) continue;
      const renewed = row && provider.renewWatch ? await provider.renewWatch(channelOf(row), now) : null;
      if (renewed && row) {
        await db.update(calendarPushChannels).set({ expiresAt: renewed.expiresAt, updatedAt: now }).where(eq(calendarPushChannels.id, row.id));
        continue;
      }
      await watch(db, connection, calendar, provider, address!, now, row);
    } catch (err) {
      logger.warn({ err, calendarId: calendar.id }, 'calendar push: no channel (the calendar is polled)');
    }
  }
}

/**
 * A new channel for the calendar. Its token's hash is written before the provider is asked (Google
 * posts a first `sync` message at once), under a channel id of Steward's; Graph names the
 * subscription itself, and the row takes that id once it answers. The channel it replaces is stopped after.
 */
async function watch(db: Db, connection: Pick<CalendarConnectionRow, 'id' | 'provider'>, calendar: CalendarRow, provider: CalendarProvider, address: string, now: Date, replaced: CalendarPushChannelRow | null) {
  const token = randomBytes(32).toString('base64url');
  const channelId = randomUUID();
  const values = { calendarId: calendar.id, connectionId: connection.id, provider: connection.provider as PushProvider, channelId, resourceId: null, tokenHash: hashSecret(token), expiresAt: now, pendingSince: null, updatedAt: now };
  const [row] = await db.insert(calendarPushChannels).values(values).onConflictDoUpdate({ target: calendarPushChannels.calendarId, set: values }).returning();
  let made: PushChannel;
  try {
    made = await provider.watch!({ remoteId: calendar.remoteId }, { channelId, address, token, now });
  } catch (e) {
    await db.delete(calendarPushChannels).where(eq(calendarPushChannels.id, row.id));
    throw e;
  }
  await db.update(calendarPushChannels).set({ channelId: made.channelId, resourceId: made.resourceId, expiresAt: made.expiresAt, updatedAt: now }).where(eq(calendarPushChannels.id, row.id));
  if (replaced) {
    try {
      await provider.stopWatch?.(channelOf(replaced));
    } catch (err) {
      logger.warn({ err, calendarId: calendar.id }, 'calendar push: the replaced channel could not be stopped');
    }
  }
}

/*
 * Stopping with the change (a calendar no longer read, a connection removed): the rows go in the
 * transaction that makes the change, so from its commit on a notification names no channel and is
 * refused (nothing synced); the provider is told after the commit, best-effort (`stopDropped`).
 */

/** The channels of the user's calendars that `selected` no longer reads, deleted in the caller's transaction; answers them for `stopDropped`. */
export async function dropUnreadPush(tx: Tx, userId: string, selected: string[]): Promise<CalendarPushChannelRow[]> {
  // An empty list reads every calendar.
  if (!selected.length) return [];
  const owned = tx.select({ id: calendars.id }).from(calendars).where(eq(calendars.userId, userId));
  return tx
    .delete(calendarPushChannels)
    .where(and(inArray(calendarPushChannels.calendarId, owned), notInArray(calendarPushChannels.calendarId, selected)))
    .returning();
}

/** Every channel of a connection, deleted in the transaction that removes it; answers them for `stopDropped`. */
export async function dropConnectionPush(tx: Tx, connectionId: string): Promise<CalendarPushChannelRow[]> {
  return tx.delete(calendarPushChannels).where(eq(calendarPushChannels.connectionId, connectionId)).returning();
}

/** Dropped channels stopped at their providers, after the commit; `providerOf` null (or failing): logged, left to expire. Never throws. */
export async function stopDropped(rows: CalendarPushChannelRow[], providerOf: (connectionId: string) => Promise<CalendarProvider | null>): Promise<void> {
  for (const connectionId of new Set(rows.map((r) => r.connectionId))) {
    const provider = await providerOf(connectionId).catch((err: unknown) => {
      logger.warn({ err, connectionId }, 'calendar push: no provider to stop the channels with');
      return null;
    });
    for (const row of rows) if (row.connectionId === connectionId) await stopChannel(provider, row);
  }
}

/** A sync is starting: notifications from now on ask for another one (the debounce's reset). */
export async function clearPending(db: Db, connectionId: string, calendarId?: string): Promise<void> {
  await db
    .update(calendarPushChannels)
    .set({ pendingSince: null })
    .where(and(eq(calendarPushChannels.connectionId, connectionId), calendarId ? eq(calendarPushChannels.calendarId, calendarId) : undefined));
}

/** Marks the channel's calendar as waiting for a sync; true only for the first notification since the last sync began. */
export async function markPending(db: Db, channel: CalendarPushChannelRow): Promise<boolean> {
  const rows = await db
    .update(calendarPushChannels)
    .set({ pendingSince: sql`now()` })
    .where(and(eq(calendarPushChannels.id, channel.id), isNull(calendarPushChannels.pendingSince)))
    .returning({ id: calendarPushChannels.id });
  return rows.length > 0;
}

export async function unmarkPending(db: Db, channelIds: string[]): Promise<void> {
  if (channelIds.length) await db.update(calendarPushChannels).set({ pendingSince: null }).where(inArray(calendarPushChannels.id, channelIds));
}
