import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { calendarPushChannels, type CalendarPushChannelRow } from '@/db/schema';
import { matchesSecretHash } from '@/server/access/keys';
import { readNotifications, validationAnswer } from '@/server/channels/graph/notifications';
import { badRequest, forbidden } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import { logger } from '@/server/logger';
import { markPending, unmarkPending } from './push';

/*
 * The notifications providers post to (POST /api/calendars/push/google, /microsoft). Each is
 * verified against its channel (Google: X-Goog-Channel-ID names the channel and
 * X-Goog-Channel-Token must be its token; Graph: the subscription id and its clientState), both
 * compared as SHA-256 hashes in constant time; an unknown channel or a wrong token is 403 and
 * nothing is synced. A verified one only asks the engine for that calendar's sync (never inline:
 * the provider wants a quick answer), once per sync however many arrive (`markPending`).
 */

/** How the sync is asked for: the engine event, sent by the endpoint registry's wiring (server/endpoints.ts). */
export type CalendarPushDeps = { requestSync(o: { connectionId: string; calendarId: string; id: string }): Promise<void> };

const empty = (status: number) => new Response(null, { status, headers: { 'Cache-Control': 'no-store' } });

async function requestSyncOnce(db: Db, deps: CalendarPushDeps, channel: CalendarPushChannelRow) {
  if (!(await markPending(db, channel))) return;
  try {
    await deps.requestSync({ connectionId: channel.connectionId, calendarId: channel.calendarId, id: `calendar-push-${channel.id}-${Date.now()}` });
  } catch (err) {
    // The next notification asks again; the poll catches up in any case.
    await unmarkPending(db, [channel.id]);
    logger.warn({ err, calendarId: channel.calendarId }, 'calendar push: the sync could not be requested');
  }
}

export async function googlePushNotification(db: Db, req: ApiRequest, deps: CalendarPushDeps): Promise<Response> {
  const channelId = req.headers.get('x-goog-channel-id');
  const state = req.headers.get('x-goog-resource-state');
  if (!channelId || channelId.length > 200) throw badRequest('X-Goog-Channel-ID: missing');
  const [channel] = await db
    .select()
    .from(calendarPushChannels)
    .where(and(eq(calendarPushChannels.provider, 'google'), eq(calendarPushChannels.channelId, channelId)));
  if (!channel || !matchesSecretHash(req.headers.get('x-goog-channel-token'), channel.tokenHash)) {
    logger.warn({ channelId }, 'calendar push: a Google notification refused (unknown channel or wrong token)');
    throw forbidden('X-Goog-Channel-Token: does not match the channel', 'invalid_channel_token');
  }
  // `sync` is the channel's first message, sent when it is made: nothing changed yet.
  if (state !== 'sync') await requestSyncOnce(db, deps, channel);
  return empty(200);
}

export async function graphPushNotification(db: Db, req: ApiRequest, validationToken: string | undefined, deps: CalendarPushDeps): Promise<Response> {
  // Graph checks the URL when a subscription is made: the token, as plain text, within 10 seconds.
  if (validationToken !== undefined) return validationAnswer(validationToken);
  const notifications = await readNotifications(req);
  const ids = [...new Set(notifications.map((n) => n.subscriptionId))];
  const rows = await db
    .select()
    .from(calendarPushChannels)
    .where(and(eq(calendarPushChannels.provider, 'microsoft'), inArray(calendarPushChannels.channelId, ids)));
  const verified = new Map<string, CalendarPushChannelRow>();
  for (const n of notifications) {
    const channel = rows.find((r) => r.channelId === n.subscriptionId);
    if (channel && matchesSecretHash(n.clientState, channel.tokenHash)) verified.set(channel.id, channel);
  }
  if (!verified.size) {
    logger.warn({ subscriptionIds: ids }, 'calendar push: Graph notifications refused (unknown subscription or wrong clientState)');
    throw forbidden('clientState: does not match the subscription', 'invalid_client_state');
  }
  for (const channel of verified.values()) await requestSyncOnce(db, deps, channel);
  return empty(202);
}
