import pg from 'pg';
import { logger } from '@/server/logger';

/*
 * Wakes the streams of this process that tail a chat turn (docs/chat-streaming.md). Events the
 * turn writes in this process are handed over as they are (no read back); events another process
 * of the same database writes arrive as a NOTIFY on `chat_turn_events` (payload `<turnId>:<seq>`,
 * sent by a trigger on every insert) on one LISTEN connection per process, and the stream reads
 * them from the table. A stream also re-reads on its own at every heartbeat, so a notification
 * lost while the LISTEN connection was down delays events by one heartbeat at most.
 */

export const NOTIFY_CHANNEL = 'chat_turn_events';
/** Local events a stream holds while its client reads slowly; past it, it reads them back from the table instead. */
const MAX_PENDING = 2_000;

type Delivered = { seq: number; kind: string; data: unknown };

export class TurnSubscription {
  /** Events handed over by this process's writer, not yet sent. */
  pending: Delivered[] = [];
  /** Something arrived that is not in `pending`: read the table. */
  dirty = false;
  /** The highest seq this stream has sent or holds: notifications at or below it are old news. */
  seen = 0;
  private wakeUp: (() => void) | null = null;

  constructor(
    readonly turnId: string,
    private readonly leave: (s: TurnSubscription) => void,
  ) {}

  deliver(events: Delivered[]): void {
    const fresh = events.filter((e) => e.seq > this.seen);
    if (!fresh.length) return;
    if (this.pending.length + fresh.length > MAX_PENDING) {
      this.pending = [];
      this.dirty = true;
    } else this.pending.push(...fresh);
    this.wake();
  }

  notified(seq: number): void {
    if (seq <= this.seen || this.pending.some((e) => e.seq === seq)) return;
    this.dirty = true;
    this.wake();
  }

  wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }

  /** Resolves when something arrives, after `ms`, or when `signal` fires. */
  wait(ms: number, signal: AbortSignal): Promise<'woken' | 'timeout'> {
    if (this.pending.length || this.dirty || signal.aborted) return Promise.resolve('woken');
    return new Promise((resolve) => {
      const done = (how: 'woken' | 'timeout') => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.wakeUp = null;
        resolve(how);
      };
      const onAbort = () => done('woken');
      const timer = setTimeout(() => done('timeout'), ms);
      signal.addEventListener('abort', onAbort, { once: true });
      this.wakeUp = () => done('woken');
    });
  }

  close(): void {
    this.wake();
    this.leave(this);
  }
}

const subscribers = new Map<string, Set<TurnSubscription>>();

function remove(s: TurnSubscription) {
  const set = subscribers.get(s.turnId);
  if (!set) return;
  set.delete(s);
  if (!set.size) subscribers.delete(s.turnId);
}

/** A stream's subscription to one turn; also starts this process's LISTEN connection on first use. */
export function subscribeTurn(turnId: string, connectionString: string | undefined): TurnSubscription {
  if (connectionString) listener.ensure(connectionString);
  const s = new TurnSubscription(turnId, remove);
  let set = subscribers.get(turnId);
  if (!set) subscribers.set(turnId, (set = new Set()));
  set.add(s);
  return s;
}

/** Hands events this process just committed to its streams of that turn. */
export function publishTurnEvents(turnId: string, events: Delivered[]): void {
  const set = subscribers.get(turnId);
  if (!set || !events.length) return;
  for (const s of set) s.deliver(events);
}

function onNotification(payload: string | undefined) {
  if (!payload) return;
  const cut = payload.lastIndexOf(':');
  const turnId = payload.slice(0, cut);
  const seq = Number(payload.slice(cut + 1));
  const set = subscribers.get(turnId);
  if (!set) return;
  for (const s of set) s.notified(Number.isFinite(seq) ? seq : Infinity);
}

/** Every stream reads the table again (the LISTEN connection came back: notifications may have been missed). */
function wakeAll() {
  for (const set of subscribers.values()) for (const s of set) s.notified(Infinity);
}

/** One LISTEN connection per process, opened on first use and reopened after it drops. */
const listener = (() => {
  let client: pg.Client | null = null;
  let url: string | null = null;
  let retry: NodeJS.Timeout | null = null;

  async function open() {
    if (!url) return;
    const c = new pg.Client({ connectionString: url });
    client = c;
    const lost = (err?: unknown) => {
      if (client !== c) return;
      client = null;
      if (err) logger.warn({ err }, 'chat stream listener lost its connection; reconnecting');
      c.end().catch(() => {});
      retry ??= setTimeout(() => {
        retry = null;
        void open();
      }, 1_000);
      retry.unref();
    };
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', (n) => onNotification(n.payload));
    try {
      await c.connect();
      await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
      // Keeps no process alive on its own (tests, scripts end while it is open).
      (c as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      wakeAll();
    } catch (err) {
      lost(err);
    }
  }

  return {
    ensure(connectionString: string) {
      if (url) return;
      url = connectionString;
      void open();
    },
  };
})();
