import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { channelEvents } from '@/db/schema';
import { expireFileOffers } from '@/server/channels/teams/file-offers';
import { logger } from '@/server/logger';
import { closeSettledCards, postPendingApprovals } from './channel-approvals';
import { reroutePortEvent } from './port-inbound';

/*
 * The background work of the chat apps behind the channel port, in every process that serves them: approval
 * cards for carts waiting on owners with a linked identity (posted once per version; outdated or
 * decided cards closed), provider events whose routing after the answer was lost (a crash
 * between storing and routing) are routed again, and Teams file offers nobody answered drop their bytes. One pass every STEWARD_CHANNEL_SWEEP_MS (2 s;
 * `off` stops it), never two at once. It starts with the first Slack or Teams request a process
 * serves, or explicitly (startChannelWork, from the process that starts the server).
 */

const STALE_MS = 30_000;
/**
 * How long an event whose routing keeps failing is tried again (every pass, oldest first): after
 * that it is set aside as `ignored`, named in the log, so that it neither costs every pass nor keeps
 * newer ones waiting behind it.
 */
const GIVE_UP_MS = 60 * 60_000;
const running = new WeakMap<Db, NodeJS.Timeout>();

async function reroute(db: Db): Promise<void> {
  const abandoned = await db
    .update(channelEvents)
    .set({ status: 'ignored', reason: 'routing failed for an hour: set aside', handledAt: sql`now()` })
    .where(and(eq(channelEvents.status, 'received'), lt(channelEvents.receivedAt, sql`now() - make_interval(secs => ${GIVE_UP_MS / 1000})`)))
    .returning({ id: channelEvents.id, provider: channelEvents.provider });
  if (abandoned.length) logger.error({ events: abandoned }, 'channels: events whose routing kept failing for an hour were set aside');
  const stale = await db
    .select({ id: channelEvents.id, provider: channelEvents.provider, appKey: channelEvents.appKey, payload: channelEvents.payload })
    .from(channelEvents)
    .where(and(eq(channelEvents.status, 'received'), lt(channelEvents.receivedAt, sql`now() - make_interval(secs => ${STALE_MS / 1000})`)))
    .orderBy(channelEvents.receivedAt)
    .limit(50);
  for (const e of stale) await reroutePortEvent(db, e);
}

/** One pass; exported for tests and benches that do not wait for the timer. */
export async function channelWorkOnce(db: Db): Promise<void> {
  await postPendingApprovals(db);
  await closeSettledCards(db);
  await reroute(db);
  await expireFileOffers(db);
}

function interval(): number | null {
  const raw = process.env.STEWARD_CHANNEL_SWEEP_MS;
  if (raw === 'off') return null;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 100 ? n : 2_000;
}

export function startChannelWork(db: Db): void {
  const every = interval();
  if (every === null || running.has(db)) return;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    channelWorkOnce(db)
      .catch((err: unknown) => logger.warn({ err }, 'channels: a background pass failed; the next one tries again'))
      .finally(() => (busy = false));
  }, every);
  timer.unref();
  running.set(db, timer);
}

/** Called by every Slack and Teams endpoint: the work runs in the processes that serve them. */
export const ensureChannelWork = (db: Db) => startChannelWork(db);

export function stopChannelWork(db: Db): void {
  const timer = running.get(db);
  if (timer) clearInterval(timer);
  running.delete(db);
}
