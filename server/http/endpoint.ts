import type { z } from 'zod';
import type { Db } from '@/db/client';
import type { Actor } from '@/server/access/actor';
import type { TenantCaller } from '@/server/prompts/service-keys';
import type { ScimCaller } from '@/server/scim/token';
import type { Logger } from 'pino';
import type { ApiRequest, KernelDeps, TextReply } from './kernel';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * - `none`: no credential (documents, OAuth callbacks).
 * - `any`: any valid API credential; the service decides what it reaches.
 * - `user`: must act as a user (user key, or account key with X-User-Email).
 * - `account`: an account-wide credential without X-User-Email.
 * - `service`: a tenant prompt API service key (`sk_live_`) for the `{tenantId}` in the path.
 * - `scim`: an organization's SCIM bearer token.
 */
export type AuthLevel = 'none' | 'any' | 'user' | 'account' | 'service' | 'scim';

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export type HandlerContext<P, Q, B> = {
  req: ApiRequest;
  db: Db;
  /** Absent (null) for `auth: 'none'` and `auth: 'service'` endpoints. */
  actor: Actor;
  /** Set for `auth: 'service'` endpoints. */
  tenant: TenantCaller;
  /** Set for `auth: 'scim'` endpoints. */
  scim: ScimCaller;
  params: P;
  query: Q;
  body: B;
  requestId: string;
  log: Logger;
  /** Process-wide helpers (last-used tracking, rate limits). */
  kernel: KernelDeps;
};

/** A reply with a status other than the endpoint's default, or extra headers. */
export class Reply<T = unknown> {
  constructor(
    readonly status: number,
    readonly body: T,
    readonly headers: Record<string, string> = {},
  ) {}
}
export const reply = <T>(status: number, body: T, headers?: Record<string, string>) => new Reply(status, body, headers);

export type EndpointDef<PS extends Schema | undefined, QS extends Schema | undefined, BS extends Schema | undefined, RS extends Schema> = {
  method: Method;
  /** OpenAPI-style path relative to /api, for example `/users/{userId}`. */
  path: string;
  summary: string;
  tags: string[];
  auth: AuthLevel;
  /** Reachable by a user who has not finished onboarding (the spec's exemptions). */
  onboardingExempt?: boolean;
  /** Refused with 423 while the account kill switch is engaged. */
  killSwitch?: boolean;
  params?: PS;
  query?: QS;
  body?: BS;
  /** Schema of the success body; with `status` its default code. */
  response: RS;
  status?: number;
  /** Other statuses this endpoint documents (for OpenAPI). */
  errors?: number[];
  /** Answers with something other than JSON (documents, redirects). */
  raw?: boolean;
  /** Served, but left out of the public OpenAPI document (executor plumbing). */
  internal?: boolean;
  handle: (
    ctx: HandlerContext<Out<PS>, Out<QS>, Out<BS>>,
  ) => Promise<z.input<RS> | Reply<z.input<RS>> | Response | TextReply>;
};

// The registry stores endpoints without their precise generic types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEndpoint = EndpointDef<any, any, any, any>;

export function defineEndpoint<
  PS extends Schema | undefined = undefined,
  QS extends Schema | undefined = undefined,
  BS extends Schema | undefined = undefined,
  RS extends Schema = Schema,
>(def: EndpointDef<PS, QS, BS, RS>): AnyEndpoint {
  return def as AnyEndpoint;
}
