import { retryAfterSeconds } from './errors.js';

export type RetryOptions = {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** First backoff step in ms, doubled per retry, with jitter (default 250). */
  baseDelayMs?: number;
  /** Longest wait between attempts, a Retry-After included; a longer Retry-After is not waited for (default 30 000). */
  maxDelayMs?: number;
};

export type Sleep = (ms: number, signal?: AbortSignal | null) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * Whether an answer may be retried. Idempotent methods: any 429 or 5xx. POST and PATCH: only
 * when the server cannot have acted: 429 (Steward refuses it before the endpoint runs) and 503
 * (unavailable: not taken); a 500, 502 or 504 may come after the change was made, so repeating
 * it could do the work twice.
 */
export function retryable(method: string, status: number, keyed = false): boolean {
  if (status === 429) return true;
  if (status < 500) return false;
  // With an Idempotency-Key a gateway's 502 or 504 is safe to repeat: the server answers a request
  // it already ran with the kept answer. A 500 is Steward's own: the key was released with it.
  return IDEMPOTENT.has(method.toUpperCase()) || status === 503 || (keyed && (status === 502 || status === 504));
}

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** A POST or PATCH that carries an Idempotency-Key: the server keeps its first answer for a retry. */
const keyedWrite = (request: Request) => !IDEMPOTENT.has(request.method.toUpperCase()) && request.headers.has(IDEMPOTENCY_HEADER);

/** 409 idempotency_key_in_use: the same request is still being answered; waiting, then asking again, gets its answer. */
async function keyInUse(res: Response): Promise<boolean> {
  if (res.status !== 409) return false;
  const body = (await res.clone().json().catch(() => null)) as { error_code?: unknown } | null;
  return body?.error_code === 'idempotency_key_in_use';
}

/** A connection that was never made (nothing reached the server) may be retried for any method. */
function neverSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return cause?.code === 'ECONNREFUSED' || cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN';
}

export type Send = (request: Request) => Promise<Response>;

/**
 * Sends `build()`'s request, again after a wait when the answer is retryable: the server's
 * `Retry-After` when it gives one, else exponential backoff with full jitter. Each attempt builds
 * a fresh request (credentials are read anew, a body is sent again).
 */
export async function withRetries(build: () => Promise<Request>, send: Send, opts: RetryOptions & { sleep: Sleep; now: () => number }): Promise<Response> {
  const retries = opts.retries ?? 3;
  const base = opts.baseDelayMs ?? 250;
  const max = opts.maxDelayMs ?? 30_000;
  for (let attempt = 0; ; attempt++) {
    const request = await build();
    let res: Response;
    try {
      res = await send(request);
    } catch (e) {
      // A keyed write whose answer was lost (reset, timeout) is repeated: the server replays what it did.
      const idempotent = IDEMPOTENT.has(request.method) || keyedWrite(request);
      if (attempt >= retries || request.signal?.aborted || !(idempotent || neverSent(e))) throw e;
      await opts.sleep(backoff(attempt, base, max), request.signal);
      continue;
    }
    const again = retryable(request.method, res.status, keyedWrite(request)) || (keyedWrite(request) && (await keyInUse(res)));
    if (attempt >= retries || !again) return res;
    const asked = retryAfterSeconds(res.headers.get('retry-after'), opts.now());
    if (asked !== null && asked * 1000 > max) return res;
    // Let the connection go before waiting.
    await res.body?.cancel().catch(() => undefined);
    await opts.sleep(asked !== null ? asked * 1000 : backoff(attempt, base, max), request.signal);
  }
}

const backoff = (attempt: number, base: number, max: number) => Math.round(Math.random() * Math.min(max, base * 2 ** attempt));
