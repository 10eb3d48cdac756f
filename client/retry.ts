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
export function retryable(method: string, status: number): boolean {
  if (status === 429) return true;
  if (status < 500) return false;
  return IDEMPOTENT.has(method.toUpperCase()) || status === 503;
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
      const idempotent = IDEMPOTENT.has(request.method);
      if (attempt >= retries || request.signal?.aborted || !(idempotent || neverSent(e))) throw e;
      await opts.sleep(backoff(attempt, base, max), request.signal);
      continue;
    }
    if (attempt >= retries || !retryable(request.method, res.status)) return res;
    const asked = retryAfterSeconds(res.headers.get('retry-after'), opts.now());
    if (asked !== null && asked * 1000 > max) return res;
    // Let the connection go before waiting.
    await res.body?.cancel().catch(() => undefined);
    await opts.sleep(asked !== null ? asked * 1000 : backoff(attempt, base, max), request.signal);
  }
}

const backoff = (attempt: number, base: number, max: number) => Math.round(Math.random() * Math.min(max, base * 2 ** attempt));
