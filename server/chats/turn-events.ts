import { and, asc, eq, gt, lt, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { storableJson } from '@/db/storable';
import { chatTurnEvents } from '@/db/schema';
import { publishTurnEvents } from './stream-hub';

/*
 * The events of a chat turn (docs/chat-streaming.md): appended in order, numbered by the turn
 * row's counter (the SSE `id:`), read back by streams from any process. Appending takes the turn
 * row's lock for one statement, so events of one turn never share a number.
 */

export const TURN_EVENT_KINDS = ['status_update', 'interim_message', 'message', 'error'] as const;
export type TurnEventKind = (typeof TURN_EVENT_KINDS)[number];
/** After one of these the turn streams nothing more: the stream closes. */
export const FINAL_KINDS: ReadonlySet<string> = new Set<TurnEventKind>(['message', 'error']);

export type NewTurnEvent = { kind: TurnEventKind; data: Record<string, unknown> };
export type TurnEvent = { seq: number; kind: string; data: unknown };

/** How long events are kept for replay. */
export const EVENT_RETENTION_MS = 24 * 3_600_000;

/**
 * Appends events in one statement: the counter moves by their number and each gets the next
 * seq. Inside a transaction the caller publishes after commit (`publishTurnEvents`); with the
 * database itself (autocommit) pass `publish` to wake this process's streams at once.
 */
export async function appendTurnEvents(tx: Tx, turnId: string, events: NewTurnEvent[], publish = false): Promise<TurnEvent[]> {
  if (!events.length) return [];
  const { rows } = await tx.execute<{ seq: number; kind: string; data: unknown }>(sql`
    WITH bump AS (
      UPDATE chat_turns SET last_seq = last_seq + ${events.length} WHERE id = ${turnId} RETURNING last_seq
    )
    INSERT INTO chat_turn_events (turn_id, seq, kind, data)
    SELECT ${turnId}, bump.last_seq - ${events.length} + e.ord::int, e.ev->>'kind', e.ev->'data'
    FROM bump, jsonb_array_elements(${JSON.stringify(storableJson(events))}::jsonb) WITH ORDINALITY AS e(ev, ord)
    RETURNING seq, kind, data`);
  const written = rows.map((r) => ({ seq: Number(r.seq), kind: r.kind, data: r.data })).sort((a, b) => a.seq - b.seq);
  if (publish) publishTurnEvents(turnId, written);
  return written;
}

/** Events after `afterSeq`, oldest first, at most `limit`. */
export async function readTurnEvents(db: Db, turnId: string, afterSeq: number, limit = 500): Promise<TurnEvent[]> {
  return db
    .select({ seq: chatTurnEvents.seq, kind: chatTurnEvents.kind, data: chatTurnEvents.data })
    .from(chatTurnEvents)
    .where(and(eq(chatTurnEvents.turnId, turnId), gt(chatTurnEvents.seq, afterSeq)))
    .orderBy(asc(chatTurnEvents.seq))
    .limit(limit);
}

/** The sweep: events older than a day go (the turns stay, with their status, reply and usage). */
export async function sweepTurnEvents(db: Db, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - EVENT_RETENTION_MS);
  const deleted = await db.delete(chatTurnEvents).where(lt(chatTurnEvents.createdAt, cutoff)).returning({ seq: chatTurnEvents.seq });
  return deleted.length;
}

/**
 * Appends in the background, in order, several at a time: while one statement is on its way the
 * next events gather and go together, so a fast token stream costs far fewer round trips than
 * events. `flush` waits for everything pushed and rethrows a failed write.
 */
export class TurnEventWriter {
  private queue: NewTurnEvent[] = [];
  private running: Promise<void> | null = null;
  private failure: unknown = null;

  constructor(
    private readonly db: Db,
    private readonly turnId: string,
  ) {}

  push(event: NewTurnEvent): void {
    if (this.failure) return;
    this.queue.push(event);
    this.running ??= this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length && !this.failure) {
        const batch = this.queue;
        this.queue = [];
        await appendTurnEvents(this.db, this.turnId, batch, true);
      }
    } catch (e) {
      this.failure = e;
    } finally {
      this.running = null;
    }
  }

  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (this.failure) throw this.failure;
  }
}
