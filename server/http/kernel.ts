import { randomUUID } from 'node:crypto';
import './zod-config';
import type { Database } from '@/db/client';
import type { Actor } from '@/server/access/actor';
import { authenticate } from '@/server/access/authenticate';
import { assertScopes } from '@/server/access/scopes';
import { authenticateServiceKey, type TenantCaller } from '@/server/prompts/service-keys';
import { authenticateScim, type ScimCaller } from '@/server/scim/token';
import { LastUsedTracker } from '@/server/access/last-used';
import { logger } from '@/server/logger';
import type { Logger } from 'pino';
import type { AnyEndpoint } from './endpoint';
import { Reply } from './endpoint';
import { AppError, BareRefusal, databaseRefusal, accountBlocked, killSwitchEngaged, onboardingRequired, unauthorized, forbidden } from './errors';
import { clientAddress, originForHost, publicOrigin, requestHost } from './public-origin';
import { RateLimits } from './rate-limit';
import { addApiHeaders, withApiHeaders } from './response-headers';
import { Router } from './router';
import { decodeJsonBody, parseOrThrow, problemsOf, queryObject } from './validate';

export type KernelDeps = {
  database: Database;
  lastUsed: LastUsedTracker;
  rateLimits: RateLimits;
  /** Check every success body against its schema (tests and development). */
  validateResponses: boolean;
};

export type RequestInfo = { clientIp?: string };
export type ApiHandler = (req: Request, info?: RequestInfo) => Promise<Response>;

/**
 * What the kernel reads of a request. A Web `Request` is one; the lean node:http path
 * passes a lighter object so no Web streams are built per request.
 */
export type ApiRequest = {
  method: string;
  /** An absolute URL, or the request target's path (the lean server); handlers always see it absolute, on the public origin. */
  url: string;
  headers: Pick<Headers, 'get' | 'has'>;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
};

/** A serialized answer: status, headers and body text. */
export class TextReply {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string,
  ) {}
}

/** The kernel's answer: serialized text, or a Response a handler built itself. */
export type ApiReply = TextReply | Response;
export type ApiCore = (req: ApiRequest, info?: RequestInfo) => Promise<ApiReply>;

export const API_PREFIX = '/api';

export function createKernelDeps(database: Database): KernelDeps {
  return {
    database,
    lastUsed: new LastUsedTracker(database.pool),
    rateLimits: new RateLimits(database.pool),
    validateResponses: process.env.NODE_ENV !== 'production' || process.env.STEWARD_VALIDATE_RESPONSES === '1',
  };
}

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);


/**
 * The one request pipeline: route, credential, act-as, rate limit, user state,
 * validation, service call, error mapping. Route files and the lean server both use it.
 */
export function createApiHandler(endpoints: AnyEndpoint[], deps: KernelDeps): ApiHandler {
  const core = createApiCore(endpoints, deps);
  return async (req, info) => toResponse(await core(req, info));
}

export function toResponse(reply: ApiReply): Response {
  if (reply instanceof Response) return reply;
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

export function createApiCore(endpoints: AnyEndpoint[], deps: KernelDeps): ApiCore {
  const router = new Router(endpoints);

  return async function handle(incoming, info = {}) {
    const requestId = validRequestId(incoming.headers.get('x-request-id')) ?? randomUUID();
    // A child logger costs an allocation per request; only make it when something logs.
    let child: Logger | undefined;
    const log = () => (child ??= logger.child({ requestId }));
    const started = performance.now();
    // Routing and every URL a handler builds come from the request path on the configured public
    // origin; the Host header never enters a URL (it only picks a hosted app, see hosted/accounts.ts).
    const url = apiUrl(incoming.url);
    const req: ApiRequest = url ? rebased(incoming, url.href) : incoming;
    const secure = originForHost(requestHost(req.headers) ?? publicOrigin().host).secure;
    let res: ApiReply;
    let actor: Actor | null = null;
    try {
      if (!url) throw new AppError(400, 'bad_request', 'The request target is not a valid path');
      const pathname = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) || '/' : url.pathname;
      const match = router.match(pathname);
      if (!match) throw new AppError(404, 'not_found', `No endpoint at ${url.pathname}`);
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      const ep = match.route.methods.get(method);
      if (!ep) {
        const allow = [...match.route.methods.keys()].join(', ');
        throw new AppError(405, 'method_not_allowed', `${req.method} is not supported here; use ${allow}`, { allow });
      }

      let tenant: TenantCaller | null = null;
      let scim: ScimCaller | null = null;
      const counted = <T>(attempt: Promise<T>) => countingFailures(attempt, deps.rateLimits, clientIp(req, info), req.headers.has('authorization'));
      if (ep.auth === 'scim') {
        scim = await counted(authenticateScim(deps.database.db, req.headers));
        await deps.rateLimits.consume(scim, method, ep.path, clientIp(req, info));
      } else if (ep.auth === 'service') {
        tenant = await counted(authenticateServiceKey(deps.database.db, req.headers, match.params.tenantId ?? ''));
        await deps.rateLimits.consume({ accountId: tenant.tenantId, account: tenant.account }, method, ep.path, clientIp(req, info));
      } else if (ep.auth === 'none') {
        // Unauthenticated endpoints (SAML ACS, OAuth callbacks, documents) are limited per client IP.
        const anonymous = { accountId: 'anonymous', account: { rateLimitReads: null, rateLimitWrites: deps.rateLimits.defaults.anonymousWrites ?? null } };
        await deps.rateLimits.consume(anonymous, method, ep.path, clientIp(req, info));
      } else {
        actor = await counted(authenticate({ db: deps.database.db, lastUsed: deps.lastUsed }, req.headers));
        await deps.rateLimits.consume(actor, method, ep.path, clientIp(req, info));
        assertScopes(actor, method, ep.path);
        if (actor.user) {
          if (actor.user.status !== 'active') throw accountBlocked();
          if (!actor.user.onboardedAt && !ep.onboardingExempt) throw onboardingRequired();
        }
        if (ep.auth === 'user' && !actor.user) {
          throw unauthorized('This call acts as a user: use a user key, or an account key with X-User-Email');
        }
        if (ep.auth === 'account' && (actor.user || actor.level !== 'account')) {
          throw forbidden('This call needs an account-wide key without X-User-Email');
        }
        if (ep.killSwitch && actor.account.killSwitch) throw killSwitchEngaged();
      }

      const params = ep.params ? parseOrThrow(ep.params, match.params, 'path') : match.params;
      const query = ep.query ? parseOrThrow(ep.query, queryObject(url.searchParams), 'query') : {};
      let body: unknown = undefined;
      if (ep.body && WITH_BODY.has(method)) body = parseOrThrow(ep.body, await readJson(req), 'body');

      const out = await ep.handle({
        req,
        db: deps.database.db,
        actor: actor as Actor,
        tenant: tenant as TenantCaller,
        scim: scim as ScimCaller,
        params,
        query,
        body,
        requestId,
        get log() {
          return log();
        },
        kernel: deps,
      });
      if (out instanceof Response || out instanceof TextReply) {
        res = out;
      } else {
        const r = out instanceof Reply ? out : new Reply(ep.status ?? 200, out);
        let payload = r.body;
        if (deps.validateResponses && r.status < 300) {
          const checked = ep.response.safeParse(payload);
          if (!checked.success) {
            log().error({ problems: problemsOf(checked.error, 'response'), path: ep.path }, 'response does not match its schema');
            throw new Error(`Response of ${ep.method} ${ep.path} does not match its schema`);
          }
        }
        res = json(r.status, payload, r.headers);
      }
    } catch (e) {
      res = errorResponse(e, log());
    }
    if (res instanceof Response) {
      res = withApiHeaders(res, secure);
      res.headers.set('X-Request-Id', requestId);
    } else {
      addApiHeaders(res.headers, secure);
      res.headers['X-Request-Id'] = requestId;
    }
    if (logger.isLevelEnabled('info')) {
      logger.info(
        { requestId, method: req.method, path: url?.pathname ?? null, status: res.status, ms: Math.round(performance.now() - started), accountId: actor?.accountId },
        'request',
      );
    }
    return res;
  };
}

async function readJson(req: ApiRequest): Promise<unknown> {
  return decodeJsonBody(await req.arrayBuffer());
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): TextReply {
  return new TextReply(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers }, JSON.stringify(body));
}

export function errorResponse(e: unknown, log: { error: (o: object, m: string) => void }): ApiReply {
  if (e instanceof BareRefusal) return json(e.status, e.body, e.headers);
  if (!(e instanceof AppError)) e = databaseRefusal(e) ?? e;
  if (e instanceof AppError) {
    const headers: Record<string, string> = e.status === 405 ? { Allow: String(e.extra.allow ?? '') } : {};
    return json(e.status, { ok: false, status: e.status, error_code: e.code, error: e.message, ...e.extra }, headers);
  }
  log.error({ err: e }, 'unexpected failure');
  return json(500, { ok: false, status: 500, error_code: 'server_error', error: 'Unexpected failure; retry with exponential backoff' });
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
function apiUrl(target: string): URL | null {
  try {
    const path = target.startsWith('/') ? target : (({ pathname, search }) => pathname + search)(new URL(target));
    return new URL(publicOrigin().origin + path);
  } catch {
    return null;
  }
}

function rebased(req: ApiRequest, url: string): ApiRequest {
  if (req.url === url) return req;
  return { method: req.method, url, headers: req.headers, text: () => req.text(), arrayBuffer: () => req.arrayBuffer() };
}

/**
 * Runs an authentication; when it fails with 401 for a credential that was presented, counts a
 * failure for the client IP (past the budget that answer becomes 429). A missing credential is a
 * mistake, not a guess, and is not counted.
 */
async function countingFailures<T>(attempt: Promise<T>, limits: RateLimits, ip: string, presented: boolean): Promise<T> {
  try {
    return await attempt;
  } catch (e) {
    const status = e instanceof AppError || e instanceof BareRefusal ? e.status : 0;
    if (status === 401 && presented) await limits.countFailedAuthentication(ip);
    throw e;
  }
}
