import type { Actor, UserActor } from '../actor';

/**
 * What a handler's context carries for each endpoint auth level, by the name handlers read it
 * under. The levels every API key and certificate token opens are declared here; an area that
 * brings its own credential adds its level beside the authenticator it registers, by declaration
 * merging, so the kernel never names it:
 *
 *   declare module '@/server/access/credentials/levels' {
 *     interface CallerContexts { scim: { scim: ScimCaller } }
 *   }
 */
export interface CallerContexts {
  /** No credential (documents, OAuth callbacks, SAML): no caller at all. */
  none: Record<never, never>;
  /** Any valid API key or certificate token; the service decides what it reaches. */
  any: { actor: Actor };
  /** Acting as a user: a user key, or an account credential with X-User-Email. */
  user: { actor: UserActor };
  /** An account-wide credential without X-User-Email. */
  account: { actor: Actor };
}

/** An endpoint's `auth`: which credentials open it, and so what its handler receives. */
export type AuthLevel = keyof CallerContexts;
