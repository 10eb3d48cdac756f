import type pg from 'pg';
import type { Db } from '@/db/client';
import type { RateSubject } from '@/server/http/rate-limit';
import type { LastUsedTracker } from '../last-used';
import type { AuthLevel, CallerContexts } from './levels';

/** What an authenticator may read: the request's headers, the matched path's parameters, the database. */
export type CredentialRequest = {
  headers: Pick<Headers, 'get' | 'has'>;
  /** Path parameters of the matched endpoint (a service key is checked against `{tenantId}`). */
  params: Readonly<Record<string, string>>;
  db: Db;
  /** The same database's pool, for the few per-request statements kept as plain pg (api-key.ts). */
  pool: pg.Pool;
  lastUsed: LastUsedTracker;
};

/** One kind of bearer credential (API key, certificate token, service key, SCIM token...). */
export interface Authenticator<C> {
  /** For logs and errors: `api_key`, `certificate`, `service_key`, `scim_token`. */
  readonly kind: string;
  /** Whether a bearer token is of this kind, by its shape alone (no database). */
  matches(token: string): boolean;
  /** What to tell someone who presents this credential where it does not apply. */
  readonly misplaced?: string;
  /** Verifies the token: the caller, or an AppError / BareRefusal (a 401 counts as a failed authentication). */
  authenticate(token: string, req: CredentialRequest): Promise<C>;
}

/** The credential a request presents: its Authorization header, the bearer token in it, and the registered kind that token is. */
export type Presented = { header: string | null; token: string | null; kind: Authenticator<unknown> | null };

/** What the kernel tells a level about the endpoint it admits a caller to. */
export type EndpointFacts = {
  /** The request's method, HEAD read as GET. */
  method: string;
  /** The endpoint's path template, `/users/{userId}`. */
  path: string;
  onboardingExempt?: boolean;
  killSwitch?: boolean;
};

/** A caller whose credential was verified, before the level's own rules. */
export type Authenticated<L extends AuthLevel> = {
  /** Whose rate limits the call spends. */
  subject: RateSubject;
  /** The level's rules for this endpoint (scopes, user state...), then the handler's caller fields. */
  admit(endpoint: EndpointFacts): CallerContexts[L];
};

/** An endpoint auth level as the kernel sees it: the kinds that open it and how it authenticates. */
export type CredentialLevel<L extends AuthLevel> = {
  readonly level: L;
  readonly kinds: readonly Authenticator<unknown>[];
  authenticate(presented: Presented, req: CredentialRequest): Promise<Authenticated<L>>;
};

/** How an area describes its level; `credentialLevel` turns it into what the registry holds. */
export type LevelDefinition<L extends AuthLevel, C> = {
  level: L;
  /** The credential kinds accepted here. */
  kinds: readonly Authenticator<C>[];
  /** The answer when the request presents none of them (none at all, a malformed header, another level's). */
  refuse(presented: Presented): Error;
  subject(caller: C): RateSubject;
  admit(caller: C, endpoint: EndpointFacts): CallerContexts[L];
};

/** A verified caller and its level: a class, so admitting one makes no closure per request. */
class AuthenticatedCaller<L extends AuthLevel, C> implements Authenticated<L> {
  readonly subject: RateSubject;
  constructor(
    private readonly def: LevelDefinition<L, C>,
    private readonly caller: C,
  ) {
    this.subject = def.subject(caller);
  }
  admit(endpoint: EndpointFacts): CallerContexts[L] {
    return this.def.admit(this.caller, endpoint);
  }
}

export function credentialLevel<L extends AuthLevel, C>(def: LevelDefinition<L, C>): CredentialLevel<L> {
  return {
    level: def.level,
    kinds: def.kinds,
    // Not async, and no closure: this runs on every request (the kernel awaits the promise it returns).
    authenticate(presented, req) {
      const kind = presented.token === null ? undefined : (def.kinds as readonly Authenticator<unknown>[]).includes(presented.kind!) ? (presented.kind as Authenticator<C>) : undefined;
      if (!kind || presented.token === null) return Promise.reject(def.refuse(presented));
      return kind.authenticate(presented.token, req).then((caller) => new AuthenticatedCaller(def, caller));
    },
  };
}
