import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { calendarConnections, calendarGrants, calendarPushChannels } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { badRequest, notFound } from '@/server/http/errors';
import { checkOutboundUrl } from '@/server/http/outbound-url';
import { logger } from '@/server/logger';
import { sealJson } from '@/server/secrets/sealed';
import { calendarAccessGranted } from './access';
import { CALDAV_ALLOW } from './caldav/fetch';
import { caldavProvider } from './caldav/provider';
import { CALDAV_SECRET } from './connection-provider';
import { presentOAuthConnection } from './oauth-connect';
import { detachedProviderFor } from './oauth-providers';
import { CalendarUnreachable, type CalendarProvider } from './provider';
import { dropConnectionPush, stopDropped } from './push';
import { recordCalendars, syncConnection } from './sync';

/*
 * A user's calendar connections (spec 6): a CalDAV one made here from a URL, username and app
 * password (the URL under the rule for URLs Steward calls on a user's say-so; discovery must
 * succeed, else 400 calendar_unreachable with the server's reason), Google and Microsoft ones by
 * OAuth (server/calendars/oauth-connect.ts). The password is sealed and never returned. Another
 * user's connection is not found.
 */

export const presentConnection = (db: Db, id: string) => presentOAuthConnection(db, id);

export async function connectCaldav(db: Db, actor: UserActor, input: { url: string; username: string; password: string }) {
  const url = (await checkOutboundUrl(input.url, { field: 'url', allowVariable: CALDAV_ALLOW })).href;
  const provider = caldavProvider({ url, username: input.username, password: input.password });
  let list;
  try {
    list = await provider.listCalendars();
  } catch (e) {
    if (e instanceof CalendarUnreachable) throw badRequest(`The calendar server could not be used: ${e.reason}`, { reason: e.reason }, 'calendar_unreachable');
    throw e;
  }
  const secret = await sealJson(db, { password: input.password }, CALDAV_SECRET);
  // The same server and username again: the connection is kept (with its calendars' sync state), its password replaced.
  const [existing] = await db
    .select()
    .from(calendarConnections)
    .where(and(eq(calendarConnections.userId, actor.user.id), eq(calendarConnections.provider, 'caldav'), eq(calendarConnections.url, url), eq(calendarConnections.username, input.username)));
  const [connection] = existing
    ? await db.update(calendarConnections).set({ secret, status: 'active', lastSyncError: null, failingSince: null }).where(eq(calendarConnections.id, existing.id)).returning()
    : await db.insert(calendarConnections).values({ accountId: actor.accountId, userId: actor.user.id, provider: 'caldav', url, username: input.username, secret }).returning();
  await recordCalendars(db, connection, list);
  // The first import now, so the calendar reads at once; one that fails is recorded and tried again by the engine.
  const first = await syncConnection(db, connection.id);
  // Tasks that waited for a calendar go on (server/calendars/access.ts).
  await calendarAccessGranted(db, actor.user.id);
  logger.info({ connectionId: connection.id, userId: actor.user.id, calendars: list.length, synced: first.ok }, 'CalDAV calendar connected');
  return { ok: true as const, connection: await presentConnection(db, connection.id) };
}

export async function listConnections(db: Db, actor: UserActor) {
  const rows = await db.select({ id: calendarConnections.id }).from(calendarConnections).where(eq(calendarConnections.userId, actor.user.id)).orderBy(calendarConnections.createdAt);
  return { ok: true as const, connections: await Promise.all(rows.map((r) => presentConnection(db, r.id))) };
}

/** The connection is removed with its calendars and events (they stop being read at once); an OAuth connection's grant goes with it. */
export async function deleteConnection(db: Db, actor: UserActor, id: string) {
  const [row] = await db.select().from(calendarConnections).where(and(eq(calendarConnections.id, id), eq(calendarConnections.userId, actor.user.id)));
  if (!row) throw notFound('Calendar connection');
  // Its push channels go with it, then the provider is told to stop them (./push.ts). The grant goes
  // in the same commit, so the stops use an access token taken now, while it still works.
  const pushed = await db.select({ id: calendarPushChannels.id }).from(calendarPushChannels).where(eq(calendarPushChannels.connectionId, row.id));
  let stopper: CalendarProvider | null = null;
  if (pushed.length && row.provider !== 'caldav') {
    try {
      stopper = await detachedProviderFor(db, row);
    } catch (err) {
      logger.warn({ err, connectionId: row.id }, 'calendar push: no token to stop the channels with (they expire by themselves)');
    }
  }
  const dropped = await db.transaction(async (tx) => {
    const channels = await dropConnectionPush(tx, row.id);
    await tx.delete(calendarConnections).where(eq(calendarConnections.id, row.id));
    if (row.grantId) await tx.delete(calendarGrants).where(and(eq(calendarGrants.id, row.grantId), eq(calendarGrants.userId, actor.user.id)));
    return channels;
  });
  await stopDropped(dropped, async () => stopper);
  logger.info({ connectionId: row.id, userId: actor.user.id, provider: row.provider }, 'calendar disconnected');
  return { ok: true as const };
}
