import { randomUUID } from 'node:crypto';
import './zod-config';
import type { Authenticated } from '@/server/access/credentials/authenticator';
import type { AuthLevel, CallerContexts } from '@/server/access/credentials/levels';
import { logger } from '@/server/logger';
import type { Logger } from 'pino';
import type { AnyEndpoint } from './endpoint';
import { dialectsOf, errorDialectFor, type ErrorDialect } from './error-dialects';
import { AppError, BareRefusal } from './errors';
import { boundedHeader, noteRequest } from '@/server/audit/request-meta';
import { appliesTo, claimOrReplay, credentialScope, fingerprintOf, idempotencyKeyOf, isEventStream, peekStream, type IdempotentRequest } from './idempotency';
import type { KernelDeps } from './kernel-deps';
import { clientAddress, originForHost, publicOrigin, requestHost, trustProxy, type Origin } from './public-origin';
import type { RateLimits } from './rate-limit';
import { countRequest } from './metrics';
import { inRequestSpan, tracingOn } from './tracing';
import { Reply, TextReply, errorResponse, json, toResponse, type ApiReply } from './reply';
import type { ApiRequest, RequestInfo } from './request';
import { addApiHeaders, plainJsonHeaders, withApiHeaders } from './response-headers';
import { Router } from './router';
import { decodeJsonBody, parseOrThrow, problemsOf, queryObject } from './validate';


export type ApiHandler = (req: Request, info?: RequestInfo) => Promise<Response>;
export type ApiCore = (req: ApiRequest, info?: RequestInfo) => Promise<ApiReply>;

export const API_PREFIX = '/api';

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The caller fields of an endpoint without a credential. */
const NO_CALLER: CallerContexts['none'] = {};

/**
 * The one request pipeline: route, credential, act-as, rate limit, user state,
 * validation, service call, error mapping. Route files and the lean server both use it.
 */
export function createApiHandler(endpoints: AnyEndpoint[], deps: KernelDeps): ApiHandler {
  const core = createApiCore(endpoints, deps);
  return async (req, info) => toResponse(await core(req, info));
}

export function createApiCore(endpoints: AnyEndpoint[], deps: KernelDeps): ApiCore {
  const router = new Router(endpoints);
  const dialects = dialectsOf(endpoints);
  assertCredentialsFor(endpoints, deps);

  const handle: ApiCore = (incoming, info = {}) =>
    tracingOn ? inRequestSpan(incoming.method, incoming.headers, (finish) => serve(incoming, info, finish)) : serve(incoming, info);
  return handle;

  async function serve(incoming: Parameters<ApiCore>[0], info: NonNullable<Parameters<ApiCore>[1]>, finish?: (route: string, status: number, requestId: string) => void) {
    const requestId = validRequestId(incoming.headers.get('x-request-id')) ?? randomUUID();
    // A child logger costs an allocation per request; only made when something logs.
    const logs = new RequestLog(requestId);
    const started = performance.now();
    // Routing and every URL a handler builds come from the request path on the configured public
    // origin; the Host header never enters a URL (it only picks a hosted app, see hosted/accounts.ts).
    // The origin is read once per request: it reads the environment, which is not free.
    const origin = publicOrigin();
    const url = apiUrl(incoming.url, origin.origin);
    const req: ApiRequest = url ? rebased(incoming, url.href) : incoming;
    const secure = servedSecurely(req.headers, origin);
    let res: ApiReply;
    let accountId: string | undefined;
    // The request's hold on its Idempotency-Key, settled with the answer (idempotency.ts).
    let claim: IdempotentRequest | null = null;
    let ep: AnyEndpoint | undefined;
    // The reply whose headers are already final (plainJsonHeaders), if the answer is still that one.
    let complete: TextReply | null = null;
    // The registry's path template labels metrics and spans: bounded, unlike the request path.
    let route = 'unmatched';
    try {
      if (!url) throw new AppError(400, 'bad_request', 'The request target is not a valid path');
      const pathname = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) || '/' : url.pathname;
      const match = router.match(pathname);
      if (!match) throw new AppError(404, 'not_found', `No endpoint at ${url.pathname}`);
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      // A write may record an audit event: where it came from, noted on the request and (below) on
      // the caller a handler is given (server/audit/request-meta.ts). Reads note nothing.
      const meta = method === 'GET' ? null : { ip: clientIp(req, info), userAgent: boundedHeader(req.headers.get('user-agent')), requestId };
      if (meta) noteRequest(req, meta);
      ep = match.route.methods.get(method);
      if (ep) route = ep.path;
      if (!ep) {
        const allow = [...match.route.methods.keys()].join(', ');
        throw new AppError(405, 'method_not_allowed', `${req.method} is not supported here; use ${allow}`, { allow });
      }

      let caller: CallerContexts[AuthLevel] = NO_CALLER;
      let token: string | null = null;
      if (ep.auth === 'none') {
        // Unauthenticated endpoints (SAML ACS, OAuth callbacks, documents) are limited per client IP.
        const anonymous = { accountId: 'anonymous', account: { rateLimitReads: null, rateLimitWrites: deps.rateLimits.defaults.anonymousWrites ?? null } };
        const spent = deps.rateLimits.consume(anonymous, method, ep.path, clientIp(req, info));
        if (spent) await spent;
      } else {
        // The registry says which credential the request presents; the endpoint's level verifies it.
        const level = deps.credentials.level(ep.auth);
        if (!level) throw new Error(`No credential is registered for auth level '${ep.auth}'`);
        const presented = deps.credentials.presented(req.headers);
        token = presented.token;
        let authenticated: Authenticated<AuthLevel>;
        try {
          authenticated = await level.authenticate(presented, { headers: req.headers, params: match.params, db: deps.database.db, pool: deps.database.pool, lastUsed: deps.lastUsed });
        } catch (e) {
          await countFailure(e, deps.rateLimits, clientIp(req, info), req.headers.has('authorization'));
          throw e;
        }
        accountId = authenticated.subject.accountId;
        const spent = deps.rateLimits.consume(authenticated.subject, method, ep.path, clientIp(req, info));
        if (spent) await spent;
        caller = authenticated.admit({ method, path: ep.path, onboardingExempt: ep.onboardingExempt, killSwitch: ep.killSwitch });
        if (meta) for (const c of Object.values(caller)) noteRequest(c, meta);
      }

      // Idempotency-Key: after the caller is admitted (a replay never bypasses scopes, blocks or
      // the kill switch), before anything runs. Requests without the header pay one header lookup.
      let bytes: ArrayBuffer | null = null;
      const key = ep.auth !== 'none' && appliesTo(method) ? idempotencyKeyOf(req.headers) : null;
      let replay: TextReply | null = null;
      if (key !== null) {
        bytes = await req.arrayBuffer();
        const fingerprint = fingerprintOf(method, url.pathname + url.search, req.headers.get('x-user-email'), new Uint8Array(bytes));
        const held = await claimOrReplay(deps.database.pool, deps.database.db, credentialScope(caller, token), key, fingerprint, ep.streamSummary);
        if (held instanceof TextReply) replay = held;
        else claim = held;
      }

      const params = ep.params ? parseOrThrow(ep.params, match.params, 'path') : match.params;
      const query = ep.query ? parseOrThrow(ep.query, queryObject(url.searchParams), 'query') : {};
      let body: unknown = undefined;
      if (!replay && ep.body && WITH_BODY.has(method)) body = parseOrThrow(ep.body, decodeJsonBody(bytes ?? (await req.arrayBuffer())), 'body');

      const out = replay ?? (await ep.handle(Object.assign(new Context(req, deps, params, query, body, requestId, logs), caller)));
      if (out instanceof Response || out instanceof TextReply) {
        res = out;
      } else {
        const r = out instanceof Reply ? out : null;
        const status = r ? r.status : (ep.status ?? 200);
        const payload = r ? r.body : out;
        if (deps.validateResponses && status < 300) {
          const checked = ep.response.safeParse(payload);
          if (!checked.success) {
            logs.get().error({ problems: problemsOf(checked.error, 'response'), path: ep.path }, 'response does not match its schema');
            throw new Error(`Response of ${ep.method} ${ep.path} does not match its schema`);
          }
        }
        // An answer without headers of its own gets its whole header set at once (below, `complete`);
        // one kept under an Idempotency-Key keeps only its own headers, as before.
        if (r || claim) res = json(status, payload, r?.headers);
        else {
          res = new TextReply(status, plainJsonHeaders(secure, requestId), JSON.stringify(payload));
          complete = res;
        }
      }
    } catch (e) {
      res = errorResponse(e, logs.get());
      const dialect = url && res instanceof TextReply ? errorDialectFor(dialects, url.pathname.slice(API_PREFIX.length)) : null;
      if (dialect && res instanceof TextReply) res = inDialect(dialect, res);
    }
    if (claim) res = await settleKey(claim, res, ep, logs);
    if (res instanceof Response) {
      res = withApiHeaders(res, secure);
      res.headers.set('X-Request-Id', requestId);
    } else if (res !== complete) {
      addApiHeaders(res.headers, secure);
      res.headers['X-Request-Id'] = requestId;
    }
    const elapsed = performance.now() - started;
    countRequest(req.method, route, res.status, elapsed / 1000);
    finish?.(route, res.status, requestId);
    if (logger.isLevelEnabled('info')) {
      logger.info({ requestId, method: req.method, path: url?.pathname ?? null, status: res.status, ms: Math.round(elapsed), accountId }, 'request');
    }
    return res;
  };
}

/**
 * What an Idempotency-Key keeps of the answer: a JSON or text answer to replay; for a stream, what
 * it reports on (a retry gets 409, then the endpoint's summary); nothing for a failure a retry
 * should repeat (5xx) or an answer that cannot be replayed. Keeping it never changes the answer:
 * should the row not be written, the key stays claimed until its lease ends.
 */
async function settleKey(claim: IdempotentRequest, res: ApiReply, ep: AnyEndpoint | undefined, logs: RequestLog): Promise<ApiReply> {
  let answer = res;
  try {
    if (res instanceof TextReply) {
      if (res.status >= 500) await claim.release();
      else await claim.keep(res);
      return res;
    }
    if (isEventStream(res) && res.status < 300 && ep?.streamSummary) {
      const peeked = await peekStream(res);
      answer = peeked.res;
      if (peeked.ref) await claim.keepStream(peeked.ref);
      else await claim.release();
      return answer;
    }
    await claim.release();
    return answer;
  } catch (err) {
    logs.get().error({ err, key: claim.key }, 'idempotency: the answer could not be kept');
    return answer;
  }
}

/**
 * Whether the request's host is served on https (HSTS), decided per distinct host value and kept:
 * the rule (public-origin.ts) reads configuration and two regular expressions, and a deployment
 * answers few hosts. The map is bounded: a flood of made-up hosts only empties it.
 */
const secureHosts = new Map<string, boolean>();
/** The last answer, by its three inputs: requests mostly name the same host, and comparing is cheaper than a key to look up. */
let lastSecure: { forwarded: string; host: string; origin: string; secure: boolean } | undefined;
function servedSecurely(headers: ApiRequest['headers'], origin: Origin): boolean {
  // The environment (TRUST_PROXY) is read only when there is a forwarded host to trust or not.
  const xfh = headers.get('x-forwarded-host');
  const forwarded = xfh !== null && trustProxy() ? xfh : '';
  const host = headers.get('host') ?? '';
  const last = lastSecure;
  if (last && last.forwarded === forwarded && last.host === host && last.origin === origin.origin) return last.secure;
  const raw = `${forwarded}|${host}|${origin.origin}`;
  let secure = secureHosts.get(raw);
  if (secure === undefined) {
    secure = originForHost(requestHost(headers) ?? origin.host).secure;
    if (secureHosts.size >= 1000) secureHosts.clear();
    secureHosts.set(raw, secure);
  }
  lastSecure = { forwarded, host, origin: origin.origin, secure };
  return secure;
}

/** A standard error reply in a protocol's own error shape (error-dialects.ts). */
function inDialect(dialect: ErrorDialect, standard: TextReply): TextReply {
  let message = '';
  let code: string | null = null;
  try {
    const body = JSON.parse(standard.body) as { ok?: unknown; error?: unknown; error_code?: unknown; message?: unknown };
    // A refusal already in the protocol's shape (a credential's BareRefusal) stays as it is.
    if (body.ok !== false) return standard;
    message = typeof body.error === 'string' ? body.error : typeof body.message === 'string' ? body.message : '';
    code = typeof body.error_code === 'string' ? body.error_code : null;
  } catch {
    // A reply that is not JSON keeps an empty message.
  }
  const { 'Content-Type': _type, 'content-type': _lower, ...headers } = standard.headers;
  return dialect({ status: standard.status, message, code, headers });
}

/**
 * What every handler receives besides its caller (Object.assign adds `actor`, `tenant` or
 * `scim`). A class, so every request's context has one shape and its lazy parts are prototype
 * getters: building an object literal with getters and a spread cost ~7 µs a request.
 */
class Context {
  readonly db: KernelDeps['database']['db'];
  constructor(
    readonly req: ApiRequest,
    readonly kernel: KernelDeps,
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly requestId: string,
    private readonly logs: RequestLog,
  ) {
    this.db = kernel.database.db;
  }
  /** A child logger only when a handler logs. */
  get log(): Logger {
    return this.logs.get();
  }
  /** The lean server makes its AbortSignal only when something asks for it. */
  get signal(): AbortSignal {
    return this.req.signal;
  }
}

/** Every endpoint's auth level must be one the registry serves: a missing one is a wiring mistake, found at startup. */
function assertCredentialsFor(endpoints: AnyEndpoint[], deps: KernelDeps) {
  const missing = endpoints.find((ep) => ep.auth !== 'none' && !deps.credentials.level(ep.auth));
  if (missing) {
    throw new Error(`No credential is registered for auth level '${missing.auth}' (${missing.method} ${missing.path}): compose it in server/credentials.ts`);
  }
}

function validRequestId(v: string | null) {
  return v && /^[\w.-]{8,128}$/.test(v) ? v : null;
}

/** The client's address for per-IP limits (see clientAddress: no socket address means behind Steward's own front). */
export function clientIp(req: Pick<ApiRequest, 'headers'>, info: RequestInfo): string {
  return clientAddress(req.headers, info.clientIp);
}

/**
 * The request's URL on the public origin, from its path alone: a path ('/api/me?x=1', the lean
 * server) or an absolute URL whose origin is dropped (the Web Request Next builds from the Host
 * header). Null when the target is neither.
 */
function apiUrl(target: string, origin: string): ApiUrl | null {
  const plain = PLAIN_TARGET.exec(target);
  if (plain) return new PlainUrl(origin, plain[1], plain[2] ?? '');
  try {
    const path = target.startsWith('/') ? target : (({ pathname, search }) => pathname + search)(new URL(target));
    return new URL(origin + path);
  } catch {
    return null;
  }
}

/** What the kernel reads of a request's URL. */
type ApiUrl = Pick<URL, 'href' | 'pathname' | 'search' | 'searchParams'>;

/**
 * A path (and query) that the URL parser would keep exactly as written: letters, digits and a
 * few marks, no dot segment (no `/.`), no percent sign, backslash or fragment. Most API requests
 * are such a path; parsing it as a URL was a visible share of the kernel's time. Anything else
 * goes through `new URL`.
 */
const PLAIN_TARGET = /^(\/(?:[A-Za-z0-9_~:@!$&'()*+,;=/-]|\.(?<!\/\.))*)(?:(\?[A-Za-z0-9_.~:@!$&()*+,;=\/-]+))?$/;

/** The URL of a plain target (PLAIN_TARGET) on the public origin, its query parsed only when read. */
class PlainUrl implements ApiUrl {
  readonly href: string;
  private params: URLSearchParams | undefined;
  constructor(
    origin: string,
    readonly pathname: string,
    readonly search: string,
  ) {
    this.href = origin + pathname + search;
  }
  get searchParams(): URLSearchParams {
    return (this.params ??= new URLSearchParams(this.search));
  }
}

/** The request's child logger, made on first use (a class: a closure per request is not free). */
class RequestLog {
  private child: Logger | undefined;
  constructor(private readonly requestId: string) {}
  get(): Logger {
    return (this.child ??= logger.child({ requestId: this.requestId }));
  }
}

function rebased(req: ApiRequest, url: string): ApiRequest {
  return req.url === url ? req : new Rebased(req, url);
}

/** A request seen at another URL. A class: an object literal with a getter is slow to build per request. */
class Rebased implements ApiRequest {
  readonly method: string;
  readonly headers: ApiRequest['headers'];
  constructor(
    private readonly inner: ApiRequest,
    readonly url: string,
  ) {
    this.method = inner.method;
    this.headers = inner.headers;
  }
  text() {
    return this.inner.text();
  }
  arrayBuffer() {
    return this.inner.arrayBuffer();
  }
  // Read through: the lean server makes its signal only when something asks for it.
  get signal() {
    return this.inner.signal;
  }
}

/**
 * An authentication failed: when with 401 for a credential that was presented, it counts as a
 * failure for the client IP (past the budget that answer becomes 429, thrown from here). A missing
 * credential is a mistake, not a guess, and is not counted.
 */
async function countFailure(e: unknown, limits: RateLimits, ip: string, presented: boolean): Promise<void> {
  const status = e instanceof AppError || e instanceof BareRefusal ? e.status : 0;
  if (status === 401 && presented) await limits.countFailedAuthentication(ip);
}
