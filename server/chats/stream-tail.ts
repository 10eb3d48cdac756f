import { eq } from 'drizzle-orm';
import type pg from 'pg';
import type { Db } from '@/db/client';
import { chatTurns } from '@/db/schema';
import type { ServerEvent } from '@/server/http/event-stream';
import { subscribeTurn } from './stream-hub';
import { FINAL_KINDS, readTurnEvents, type TurnEvent } from './turn-events';

/** Heartbeat comments keep proxies from closing an idle stream; STEWARD_SSE_HEARTBEAT_MS changes the interval (tests, benches). */
export const DEFAULT_HEARTBEAT_MS = 15_000;

export function heartbeatMs(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.STEWARD_SSE_HEARTBEAT_MS);
  return Number.isFinite(n) && n >= 10 ? n : DEFAULT_HEARTBEAT_MS;
}

const connectionString = (db: Db) => ((db as Db & { $client?: pg.Pool }).$client?.options as { connectionString?: string } | undefined)?.connectionString;

export const sseEvent = (e: TurnEvent): ServerEvent => ({ id: String(e.seq), event: e.kind, data: e.data });

/**
 * Streams a turn's events after `afterSeq` (docs/chat-streaming.md): what is stored first, then
 * each event as it is written (by this process or another one), until the final `message` or
 * `error`, after which it returns and the stream closes. Idle, it sends a heartbeat comment every
 * interval and reads the table again (a missed notification costs one interval at most). A turn
 * that ended without a stored final event (its events were swept after a day) ends the stream.
 */
export async function tailTurn(
  db: Db,
  turnId: string,
  afterSeq: number,
  send: (e: ServerEvent) => Promise<void>,
  signal: AbortSignal,
  interval = heartbeatMs(),
): Promise<void> {
  const sub = subscribeTurn(turnId, connectionString(db));
  sub.seen = afterSeq;
  let mustRead = true;
  // When a read finds nothing: ask whether the turn has already ended (at the start, and after each idle interval).
  let idle = true;
  try {
    while (!signal.aborted) {
      let batch: TurnEvent[] = [];
      // Events this process handed over are sent as they are when they follow on; anything else is read back.
      if (!mustRead && !sub.dirty && sub.pending.length && sub.pending[0].seq === sub.seen + 1) {
        batch = sub.pending;
        sub.pending = [];
      } else if (mustRead || sub.dirty || sub.pending.length) {
        sub.dirty = false;
        sub.pending = [];
        batch = await readTurnEvents(db, turnId, sub.seen, READ_LIMIT);
        mustRead = batch.length === READ_LIMIT;
      }
      for (const e of batch) {
        if (e.seq <= sub.seen) continue;
        await send(sseEvent(e));
        sub.seen = e.seq;
        if (FINAL_KINDS.has(e.kind)) return;
      }
      if (batch.length || mustRead) {
        idle = false;
        continue;
      }
      if (idle && (await ended(db, turnId))) {
        // Its final event may have landed between the read above and this look.
        for (const e of await readTurnEvents(db, turnId, sub.seen, READ_LIMIT)) await send(sseEvent(e));
        return;
      }
      idle = false;
      if ((await sub.wait(interval, signal)) === 'timeout') {
        await send({ comment: 'heartbeat' });
        mustRead = true;
        idle = true;
      }
    }
  } finally {
    sub.close();
  }
}

const READ_LIMIT = 500;

/** The turn is gone or over: with nothing left to read, its final event was swept with the rest. */
async function ended(db: Db, turnId: string): Promise<boolean> {
  const [turn] = await db.select({ status: chatTurns.status }).from(chatTurns).where(eq(chatTurns.id, turnId));
  return !turn || turn.status === 'completed' || turn.status === 'failed';
}
