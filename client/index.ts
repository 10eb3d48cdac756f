import createClient, { type Client, type ClientPathsWithMethod, type MaybeOptionalInit, type MethodResponse } from 'openapi-fetch';
import { Credential, type CertificateOptions } from './auth.js';
import { chatEvents, type ChatProcessBody, type ChatStreamEvent, type StreamOptions } from './chat-stream.js';
import { errorOf, StewardError } from './errors.js';
import type { components, operations, paths } from './openapi.js';
import { IDEMPOTENCY_HEADER, realSleep, withRetries, type RetryOptions, type Sleep } from './retry.js';

export { StewardError } from './errors.js';
export { sseFrames, type SseFrame } from './sse.js';
export type { ChatMessage, ChatProcessBody, ChatStreamEvent, StreamOptions } from './chat-stream.js';
export type { CertificateOptions } from './auth.js';
export type { RetryOptions } from './retry.js';
export type { components, operations, paths };
/** The request and response schemas of the API, by name. */
export type Schemas = components['schemas'];

export type StewardClientOptions = {
  /** The API root, e.g. `https://steward.example.com/api` (`apiUrl` is accepted too). */
  baseUrl?: string;
  apiUrl?: string;
  /** An `ak_live_` API key: account-wide, organization or user level. */
  apiKey?: string;
  /** Or certificate tokens: RS256 JWTs signed here with the registered key pair. */
  certificate?: CertificateOptions;
  /** Act as this user from the start (the same as `.as(email)`). */
  userEmail?: string;
  /** Retries on 429 and 5xx (see `retryable`). */
  retry?: RetryOptions;
  /**
   * Every POST and PATCH carries an Idempotency-Key (a random UUID unless the caller set one), the
   * same on each retry: a request whose answer was lost is repeated without doing the work twice.
   * `false` sends none (default true).
   */
  idempotencyKeys?: boolean;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Injectable for tests: the fetch to send with, the clock (ms), and how to wait. */
  fetch?: (request: Request) => Promise<Response>;
  now?: () => number;
  sleep?: Sleep;
};

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
type InitArgs<I> = RequiredKeys<I> extends never ? [(I & { [key: string]: unknown })?] : [I & { [key: string]: unknown }];

/** Like openapi-fetch's methods, but resolving to the success body and throwing StewardError otherwise. */
export type DataMethod<M extends Method> = <P extends ClientPathsWithMethod<Client<paths>, M>, I extends MaybeOptionalInit<paths[P], M>>(
  url: P,
  ...init: InitArgs<I>
) => Promise<MethodResponse<Client<paths>, M, P, I>>;

export type StewardClient = {
  GET: DataMethod<'get'>;
  POST: DataMethod<'post'>;
  PUT: DataMethod<'put'>;
  PATCH: DataMethod<'patch'>;
  DELETE: DataMethod<'delete'>;
  /** The openapi-fetch client underneath (same auth and retries): answers `{data, error, response}` without throwing. */
  api: Client<paths>;
  /** The user this client acts as (X-User-Email), or null. */
  readonly userEmail: string | null;
  /** The same client acting as the user holding `email` (with an account key or a certificate token). */
  as(email: string): StewardClient;
  chats: {
    /**
     * POST /chats/{chatId}/process and its events as they come, ending after `message` or
     * `error`; a broken stream is resumed with Last-Event-ID, so nothing is lost or repeated.
     */
    process(chatId: string, body: ChatProcessBody, opts?: StreamOptions): AsyncIterable<ChatStreamEvent>;
    /** Reads (or resumes, after `lastEventId`) the events of a turn already started. */
    events(chatId: string, executionId: string, opts?: StreamOptions & { lastEventId?: string }): AsyncIterable<ChatStreamEvent>;
  };
};

/** A Steward API client: typed calls from the OpenAPI document, with auth, retries and typed errors. */
export function createStewardClient(options: StewardClientOptions): StewardClient {
  const baseUrl = (options.baseUrl ?? options.apiUrl ?? '').replace(/\/+$/, '');
  if (!baseUrl) throw new TypeError('createStewardClient needs baseUrl (the API root, e.g. https://steward.example.com/api)');
  if (!options.apiKey === !options.certificate) throw new TypeError('createStewardClient needs exactly one of apiKey or certificate');
  const now = options.now ?? Date.now;
  const credential = new Credential(options.apiKey ? { apiKey: options.apiKey } : { certificate: options.certificate! }, now);
  return build({ ...options, baseUrl, now, sleep: options.sleep ?? realSleep, send: options.fetch ?? ((r) => fetch(r)) }, credential, options.userEmail ?? null);
}

type Shared = StewardClientOptions & { baseUrl: string; now: () => number; sleep: Sleep; send: (request: Request) => Promise<Response> };

function build(shared: Shared, credential: Credential, userEmail: string | null): StewardClient {
  // Every attempt of every request: a fresh copy with the current credential (tokens refresh), and
  // for a POST or PATCH one Idempotency-Key for all its attempts.
  const send = (request: Request) => {
    const write = request.method === 'POST' || request.method === 'PATCH';
    const key = write && shared.idempotencyKeys !== false && !request.headers.has(IDEMPOTENCY_HEADER) ? crypto.randomUUID() : null;
    return withRetries(
      async () => {
        const attempt = request.clone();
        if (key) attempt.headers.set(IDEMPOTENCY_HEADER, key);
        attempt.headers.set('Authorization', `Bearer ${await credential.bearer(userEmail)}`);
        if (userEmail) attempt.headers.set('X-User-Email', userEmail);
        for (const [k, v] of Object.entries(shared.headers ?? {})) if (!attempt.headers.has(k)) attempt.headers.set(k, v);
        return attempt;
      },
      shared.send,
      { ...shared.retry, sleep: shared.sleep, now: shared.now },
    );
  };
  const api = createClient<paths>({ baseUrl: shared.baseUrl, fetch: send });

  const unwrap = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE') =>
    (async (url: string, init?: object) => {
      const res = await (api[method] as (u: string, i?: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>)(url, init);
      if (!res.response.ok) throw errorOf(res.response.status, res.response.headers, res.error ?? null, shared.now());
      return res.data ?? null;
    }) as never;

  const raw = (method: 'GET' | 'POST', path: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal }) =>
    send(
      new Request(shared.baseUrl + path, {
        method,
        headers: { ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
        signal: init.signal,
      }),
    );
  const transport = { send: raw, sleep: shared.sleep };

  return {
    GET: unwrap('GET'),
    POST: unwrap('POST'),
    PUT: unwrap('PUT'),
    PATCH: unwrap('PATCH'),
    DELETE: unwrap('DELETE'),
    api,
    userEmail,
    as: (email: string) => build(shared, credential, email),
    chats: {
      process: (chatId, body, opts = {}) =>
        chatEvents(transport, chatId, () => raw('POST', `/chats/${encodeURIComponent(chatId)}/process`, { body, headers: { Accept: 'text/event-stream' }, signal: opts.signal }), opts),
      events: (chatId, executionId, opts = {}) =>
        chatEvents(
          transport,
          chatId,
          () =>
            raw('GET', `/chats/${encodeURIComponent(chatId)}/runs/${encodeURIComponent(executionId)}/events`, {
              headers: { Accept: 'text/event-stream', ...(opts.lastEventId ? { 'Last-Event-ID': opts.lastEventId } : {}) },
              signal: opts.signal,
            }),
          { ...opts, executionId },
        ),
    },
  };
}

/**
 * Polls `check` until it returns something other than null/undefined/false, e.g. a task's cart
 * appearing. Throws a StewardError `timeout` after `timeoutMs` (default 60 s).
 */
export async function waitFor<T>(check: () => Promise<T | null | undefined | false>, opts: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const value = await check();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) throw new StewardError({ status: 0, code: 'timeout', message: 'Gave up waiting', requestId: null });
    await realSleep(opts.intervalMs ?? 1_000, opts.signal);
  }
}
