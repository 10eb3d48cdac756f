import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Db } from '@/db/client';
import type { Actor } from '@/server/access/actor';
import { AppError, invalidFields } from './errors';
import { GroupCommit } from './group-commit';
import { TextReply } from './reply';

/*
 * Idempotency-Key (spec 5): the first answer to a POST or PATCH is kept per credential and key for
 * 24 hours and replayed to a retry with `Idempotent-Replayed: true`. The kernel claims the key
 * before the handler runs (one statement), keeps the answer after, and answers a retry from the
 * row: the same key for another request is 422, one still being answered is waited for, then 409.
 * A stream (SSE) is never replayed: its key answers 409 while the work it reports on runs, and that
 * work's JSON summary afterwards (the endpoint's `streamSummary`).
 */

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** 1–255 printable ASCII characters (spec 5). */
const KEY_SHAPE = /^[\x20-\x7e]{1,255}$/;
export const KEY_PATTERN = '^[\\x20-\\x7E]{1,255}$';
const KEEP = '24 hours';
/**
 * A `running` row is held by the process answering it for LEASE_MS at a time, and that process
 * renews every row it holds each RENEW_EVERY_MS (one statement for all of them). A live request,
 * however long, is never taken over; a row whose process died (kill -9, a lost machine) lapses
 * within LEASE_MS and the next retry of the same request takes it over.
 */
export const LEASE_MS = 10_000;
export const RENEW_EVERY_MS = 3_000;
/**
 * A safety net: a hold older than this is renewed no more (a request answers long before; a hold
 * never settled, which the kernel does not make, would otherwise block its key for 24 hours).
 */
const MAX_HOLD_MS = 30 * 60_000;
/** How long a retry waits for the first request's answer before 409 idempotency_key_in_use. */
const WAIT_MS = 5_000;

export const appliesTo = (method: string) => method === 'POST' || method === 'PATCH';

/** The header's key, or null when absent; 400 naming the header when it is malformed. */
export function idempotencyKeyOf(headers: { get(name: string): string | null }): string | null {
  const key = headers.get(IDEMPOTENCY_HEADER);
  if (key === null) return null;
  if (!KEY_SHAPE.test(key)) throw invalidFields([{ field: 'Idempotency-Key', problem: 'must be 1 to 255 printable ASCII characters' }]);
  return key;
}

/**
 * Whose key it is: the credential, not the token (a certificate's tokens change every hour, its
 * kid does not). A credential the kernel cannot name (service keys, SCIM tokens) is its token's hash.
 */
export function credentialScope(caller: object, token: string | null): string {
  const actor = (caller as { actor?: Actor }).actor;
  const c = actor?.credential;
  if (c?.kind === 'api_key') return `api_key:${c.keyId}`;
  if (c?.kind === 'certificate') return `certificate:${c.kid}`;
  return `token:${createHash('sha256').update(token ?? '').digest('hex').slice(0, 40)}`;
}

/** What makes two requests the same: method, path with query, the user acted as, and the body's bytes. */
export function fingerprintOf(method: string, target: string, actingAs: string | null, body: Uint8Array): string {
  return createHash('sha256').update(`${method}\n${target}\n${actingAs ?? ''}\n`).update(body).digest('hex');
}

/** What a stream's summary resolver answers: null while the work still runs. */
export type StreamSummary = (db: Db, ref: string) => Promise<{ status: number; body: unknown } | null>;

export const keyReused = () =>
  new AppError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used for a different request (method, path or body); send a new key for a new request');
export const keyInUse = (extra?: Record<string, unknown>) =>
  new AppError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being answered; retry once it has finished', extra);

type Stored = { fingerprint: string; state: 'running' | 'done' | 'streaming'; status: number | null; headers: Record<string, string> | null; body: string | null; stream_ref: string | null };

/**
 * Claims several keys in one statement (group-commit.ts): each is inserted, or taken over when it
 * expired or when its first request died (a running row past its lease, same request). A key
 * twice in one batch is claimed once; the other request finds it running and waits.
 */
const CLAIM = `INSERT INTO idempotency_keys AS k (scope, key, fingerprint, state, locked_until, created_at, expires_at)
  SELECT v.scope, v.key, v.fingerprint, 'running', now() + interval '${LEASE_MS} milliseconds', now(), now() + interval '${KEEP}'
  FROM unnest($1::text[], $2::text[], $3::text[]) AS v(scope, key, fingerprint)
  ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'running', status = NULL, headers = NULL, body = NULL,
    stream_ref = NULL, locked_until = excluded.locked_until, created_at = excluded.created_at, expires_at = excluded.expires_at
  WHERE k.expires_at <= now() OR (k.state = 'running' AND k.locked_until < now() AND k.fingerprint = excluded.fingerprint)
  RETURNING k.scope, k.key, k.created_at::text AS held`;
const READ = `SELECT fingerprint, state, status, headers, body, stream_ref FROM idempotency_keys WHERE scope = $1 AND key = $2 AND expires_at > now()`;
/** Keeps several answers in one statement (group-commit.ts). */
const KEEP_ANSWERS = `UPDATE idempotency_keys AS k SET state = 'done', status = v.status, headers = v.headers::jsonb, body = v.body, locked_until = NULL
  FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[]) AS v(scope, key, status, headers, body)
  WHERE k.scope = v.scope AND k.key = v.key`;

/**
 * Renews the rows this process holds, in one statement. A row is this process's while its
 * `created_at` is the one its claim wrote: a row taken over meanwhile (this process stalled past
 * its lease) is someone else's and stays untouched.
 */
const RENEW = `UPDATE idempotency_keys AS k SET locked_until = now() + interval '${LEASE_MS} milliseconds'
  FROM unnest($1::text[], $2::text[], $3::text[]) AS v(scope, key, held)
  WHERE k.scope = v.scope AND k.key = v.key AND k.created_at = v.held::timestamptz AND k.state = 'running'`;

type Claim = { scope: string; key: string; fingerprint: string };
/** A claim won: the row's `created_at` as text (what makes it this claim's row), or null when not won. */
type Won = string | null;
type Kept = { scope: string; key: string; status: number; headers: string; body: string };

type Hold = { scope: string; key: string; held: string; since: number };

/**
 * The rows this process holds on one pool, renewed together by one timer that runs only while
 * there are any, give or take a tick (unref'd: it never keeps a process alive).
 */
class Holds {
  private readonly rows = new Set<Hold>();
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly pool: pg.Pool) {}

  add(h: Hold) {
    this.rows.add(h);
    if (!this.timer) {
      this.timer = setInterval(() => void this.renew(), RENEW_EVERY_MS);
      this.timer.unref();
    }
  }

  drop(h: Hold) {
    this.rows.delete(h);
  }

  private async renew() {
    const now = Date.now();
    for (const h of this.rows) if (now - h.since > MAX_HOLD_MS) this.drop(h);
    const rows = [...this.rows];
    // The timer stops on a tick that finds nothing held (not on each drop: a busy server would make one per request).
    if (!rows.length) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    try {
      await this.pool.query({ name: 'idem_renew', text: RENEW, values: [rows.map((h) => h.scope), rows.map((h) => h.key), rows.map((h) => h.held)] });
    } catch {
      // The next tick tries again; a row left unrenewed past its lease is taken over by a retry, as after a crash.
    }
  }
}

/** The pool's two group commits and its holds, made once per pool. */
const batches = new WeakMap<pg.Pool, { claim: GroupCommit<Claim, Won>; keep: GroupCommit<Kept, void>; holds: Holds }>();
function batchesOf(pool: pg.Pool) {
  let b = batches.get(pool);
  if (!b) {
    b = {
      holds: new Holds(pool),
      claim: new GroupCommit<Claim, Won>(async (items) => {
        const first = new Map<string, number>();
        items.forEach((c, i) => first.has(`${c.scope}\u0000${c.key}`) || first.set(`${c.scope}\u0000${c.key}`, i));
        const unique = [...first.values()].map((i) => items[i]!);
        const { rows } = await pool.query<{ scope: string; key: string; held: string }>({
          name: 'idem_claim_many',
          text: CLAIM,
          values: [unique.map((c) => c.scope), unique.map((c) => c.key), unique.map((c) => c.fingerprint)],
        });
        const won = new Map(rows.map((r) => [`${r.scope}\u0000${r.key}`, r.held]));
        return items.map((c, i) => (first.get(`${c.scope}\u0000${c.key}`) === i ? (won.get(`${c.scope}\u0000${c.key}`) ?? null) : null));
      }),
      keep: new GroupCommit<Kept, void>(async (items) => {
        await pool.query({
          name: 'idem_keep_many',
          text: KEEP_ANSWERS,
          values: [items.map((k) => k.scope), items.map((k) => k.key), items.map((k) => k.status), items.map((k) => k.headers), items.map((k) => k.body)],
        });
        return items.map(() => undefined);
      }),
    };
    batches.set(pool, b);
  }
  return b;
}
const KEEP_STREAM = `UPDATE idempotency_keys SET state = 'streaming', stream_ref = $3, locked_until = NULL WHERE scope = $1 AND key = $2`;
const RELEASE = `DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND state = 'running'`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One request's hold on its key, from the claim to the answer kept (or the claim released). While
 * it holds the key, this process renews the row's lease; settling ends the renewal whatever the
 * statement's outcome (a row that could not be settled lapses like a dead process's).
 */
export class IdempotentRequest {
  private readonly hold: Hold;

  constructor(
    private readonly pool: pg.Pool,
    readonly scope: string,
    readonly key: string,
    held: string,
  ) {
    this.hold = { scope, key, held, since: Date.now() };
    batchesOf(pool).holds.add(this.hold);
  }

  private settled() {
    batchesOf(this.pool).holds.drop(this.hold);
  }

  /** Keeps a JSON or text answer to replay. */
  async keep(reply: TextReply): Promise<void> {
    this.settled();
    await batchesOf(this.pool).keep.add({ scope: this.scope, key: this.key, status: reply.status, headers: JSON.stringify(reply.headers), body: reply.body });
  }

  /** A stream was answered: retries get 409 while `ref`'s work runs, then its summary. */
  async keepStream(ref: string): Promise<void> {
    this.settled();
    await this.pool.query({ name: 'idem_stream', text: KEEP_STREAM, values: [this.scope, this.key, ref] });
  }

  /** Nothing to keep (a failure a retry should repeat, an answer that cannot be replayed): the key is free again. */
  async release(): Promise<void> {
    this.settled();
    await this.pool.query({ name: 'idem_release', text: RELEASE, values: [this.scope, this.key] });
  }
}

/**
 * Claims the key for this request, or answers from what the key already holds: the kept answer
 * (replayed), a stream's summary, 422 for a different request, or 409 once waiting is over.
 */
export async function claimOrReplay(
  pool: pg.Pool,
  db: Db,
  scope: string,
  key: string,
  fingerprint: string,
  summary: StreamSummary | undefined,
): Promise<IdempotentRequest | TextReply> {
  const deadline = Date.now() + WAIT_MS;
  for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
    const won = await batchesOf(pool).claim.add({ scope, key, fingerprint });
    if (won !== null) return new IdempotentRequest(pool, scope, key, won);
    const { rows } = await pool.query<Stored>({ name: 'idem_read', text: READ, values: [scope, key] });
    const held = rows[0];
    // Gone between the two statements (released, or expired): claim again.
    if (!held) {
      if (Date.now() > deadline) throw keyInUse();
      continue;
    }
    if (held.fingerprint !== fingerprint) throw keyReused();
    if (held.state === 'done' && held.status !== null) return replayed(held.status, held.headers ?? {}, held.body ?? '');
    if (held.state === 'streaming') {
      const outcome = held.stream_ref && summary ? await summary(db, held.stream_ref) : null;
      // The stream's work is named, so a client that lost the stream can follow it (GET .../runs/{executionId}/events).
      if (!outcome) throw keyInUse(held.stream_ref ? { executionId: held.stream_ref } : undefined);
      const body = JSON.stringify(outcome.body);
      const headers = { 'Content-Type': 'application/json; charset=utf-8' };
      await batchesOf(pool).keep.add({ scope, key, status: outcome.status, headers: JSON.stringify(headers), body });
      return replayed(outcome.status, headers, body);
    }
    if (Date.now() + wait > deadline) throw keyInUse();
    await sleep(wait);
  }
}

function replayed(status: number, headers: Record<string, string>, body: string): TextReply {
  return new TextReply(status, { ...headers, [REPLAYED_HEADER]: 'true' }, body);
}

/**
 * The work a stream reports on: the `executionId` of its first event (a chat turn's first event
 * is `status_update {state: queued, executionId}`), or null when it names none.
 */
export function streamReference(firstChunk: Uint8Array | undefined): string | null {
  if (!firstChunk) return null;
  const text = new TextDecoder().decode(firstChunk);
  const data = /^data: (.*)$/m.exec(text)?.[1];
  if (!data) return null;
  try {
    const id = (JSON.parse(data) as { executionId?: unknown }).executionId;
    return typeof id === 'string' && id.length <= 200 ? id : null;
  } catch {
    return null;
  }
}

/**
 * A stream answered under a key: its first chunk is read to learn what it reports on, then the
 * stream is handed on unchanged (the chunk first, the rest as it is produced, cancellation passed through).
 */
export async function peekStream(res: Response): Promise<{ res: Response; ref: string | null }> {
  if (!res.body) return { res, ref: null };
  const reader = res.body.getReader();
  const first = await reader.read();
  let pending: Uint8Array | undefined = first.done ? undefined : first.value;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending) {
        controller.enqueue(pending);
        pending = undefined;
        return;
      }
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const ref = streamReference(first.done ? undefined : first.value);
  return { res: new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers }), ref };
}

export const isEventStream = (res: Response) => (res.headers.get('content-type') ?? '').startsWith('text/event-stream');

/** Drops keys past their 24 hours, a batch at a time (inngest/functions/idempotency-sweep.ts, every minute). */
export async function sweepExpiredKeys(pool: pg.Pool, batch = 5_000): Promise<number> {
  let removed = 0;
  for (;;) {
    const r = await pool.query(`DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT ${batch})`);
    removed += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < batch) return removed;
  }
}
