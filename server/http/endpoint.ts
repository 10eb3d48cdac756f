import type { z } from 'zod';
import type { Db } from '@/db/client';
import type { AuthLevel, CallerContexts } from '@/server/access/credentials/levels';
import type { Logger } from 'pino';
import type { StreamSummary } from './idempotency';
import type { KernelDeps } from './kernel-deps';
import type { Reply, TextReply } from './reply';
import type { ApiRequest } from './request';
import type { PathDialect } from './error-dialects';

export { Reply, reply } from './reply';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call an endpoint, and so what its handler receives (server/access/credentials/levels.ts):
 * - `none`: no credential (documents, OAuth callbacks); no caller.
 * - `any`: any valid API credential; the service decides what it reaches (`actor`).
 * - `user`: must act as a user: user key, or account key with X-User-Email (`actor` with a `user`).
 * - `account`: an account-wide credential without X-User-Email (`actor`).
 * - levels areas register: `service` (tenant prompt API service key: `tenant`), `scim` (an
 *   organization's SCIM token: `scim`).
 */
export type { AuthLevel };

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What every handler receives, whatever its auth level. */
type RequestContext<P, Q, B> = {
  req: ApiRequest;
  db: Db;
  params: P;
  query: Q;
  body: B;
  requestId: string;
  log: Logger;
  /** Fires when the client goes away (see ApiRequest.signal): stop streaming, give up long work. */
  signal: AbortSignal;
  /** Process-wide helpers (last-used tracking, rate limits). */
  kernel: KernelDeps;
};

/** The handler's context: the request, plus the caller its auth level admits (`actor`, `tenant`, `scim`, or none). */
export type HandlerContext<P, Q, B, A extends AuthLevel = AuthLevel> = RequestContext<P, Q, B> & CallerContexts[A];

export type EndpointDef<PS extends Schema | undefined, QS extends Schema | undefined, BS extends Schema | undefined, RS extends Schema, A extends AuthLevel = AuthLevel> = {
  method: Method;
  /** OpenAPI-style path relative to /api, for example `/users/{userId}`. */
  path: string;
  summary: string;
  /** A longer OpenAPI description, for rules a client must know that the summary cannot hold. */
  description?: string;
  /**
   * The OpenAPI operationId, for the few endpoints the rule in operation-ids.ts names badly
   * (otherwise derived from path and method). Keep it stable: generated clients are named by it.
   */
  operationId?: string;
  tags: string[];
  auth: A;
  /** Reachable by a user who has not finished onboarding (the spec's exemptions). */
  onboardingExempt?: boolean;
  /** Refused with 423 while the account kill switch is engaged. */
  killSwitch?: boolean;
  /**
   * Needs a person (spec: approvals, edits and cancels): a caller not acting as a user (an account
   * key without X-User-Email, a certificate) gets 403 before anything is looked up. The service
   * enforces it; this declares it for the generated security cases.
   */
  needsPerson?: boolean;
  params?: PS;
  query?: QS;
  body?: BS;
  /** Schema of the success body; with `status` its default code. */
  response: RS;
  status?: number;
  /** Other statuses this endpoint documents (for OpenAPI): errors, and success statuses besides `status` (a create answering 200 when it found the resource). */
  errors?: number[];
  /** Answers with something other than JSON (documents, redirects). */
  raw?: boolean;
  /**
   * For a raw endpoint whose answers are documents (an HTML page): their media type for OpenAPI, on the
   * success status and on each of `statuses` (an error page shown to a person rather than the error shape).
   */
  produces?: { mediaType: string; statuses?: number[] };
  /** Served, but left out of the public OpenAPI document (executor plumbing, test probes). */
  internal?: boolean;
  /**
   * For an endpoint that answers with a stream (SSE): the JSON a retry with the same
   * Idempotency-Key gets once the work the stream reported on has ended (null while it runs: 409).
   * Without it a streamed answer keeps no key.
   */
  streamSummary?: StreamSummary;
  /** Errors under this prefix in a protocol's own shape (SCIM), the kernel's own answers included (error-dialects.ts). */
  errorDialect?: PathDialect;
  handle: (ctx: HandlerContext<Out<PS>, Out<QS>, Out<BS>, A>) => Promise<z.input<RS> | Reply<z.input<RS>> | Response | TextReply>;
};

// The registry stores endpoints without their precise generic types; the kernel hands each the
// caller its own auth level produced.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEndpoint = EndpointDef<any, any, any, any, AuthLevel>;

/** Declares an endpoint; its handler's context is typed by its schemas and by its `auth` level. */
export function defineEndpoint<
  PS extends Schema | undefined = undefined,
  QS extends Schema | undefined = undefined,
  BS extends Schema | undefined = undefined,
  RS extends Schema = Schema,
  A extends AuthLevel = AuthLevel,
>(def: EndpointDef<PS, QS, BS, RS, A>): AnyEndpoint {
  // The one place an endpoint's types are erased: sound because the kernel hands each endpoint
  // the caller fields of the level its own `auth` names (CredentialRegistry.level(ep.auth)).
  return def as unknown as AnyEndpoint;
}
