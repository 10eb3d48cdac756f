import type { Authenticator, CredentialLevel, Presented } from './authenticator';
import type { AuthLevel } from './levels';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The credentials one API accepts: every kind, in the order a bearer token is recognised, and
 * the auth levels they open. Composed from above (server/credentials.ts) out of what each area
 * registers; the kernel asks it and names no credential itself.
 */
export class CredentialRegistry {
  private readonly levels = new Map<AuthLevel, CredentialLevel<AuthLevel>>();

  constructor(
    /** Kinds are tried in this order: prefixed tokens first, shapes that a prefixed token could also have last. */
    private readonly kinds: readonly Authenticator<unknown>[],
    levels: readonly CredentialLevel<AuthLevel>[],
  ) {
    for (const l of levels) {
      if (this.levels.has(l.level)) throw new Error(`Auth level '${l.level}' is registered twice`);
      const unknown = l.kinds.find((k) => !kinds.includes(k));
      if (unknown) throw new Error(`Auth level '${l.level}' accepts '${unknown.kind}', which is not among the registered kinds`);
      this.levels.set(l.level, l);
    }
  }

  /** The level an endpoint's `auth` names, if registered. */
  level(level: AuthLevel): CredentialLevel<AuthLevel> | undefined {
    return this.levels.get(level);
  }

  /** What the request presents: the Authorization header, its bearer token, and which kind that is. */
  presented(headers: Pick<Headers, 'get'>): Presented {
    const header = headers.get('authorization');
    const token = header ? (BEARER.exec(header)?.[1] ?? null) : null;
    // A loop, not find(): this runs on every request, and a closure per call is not free.
    let kind: Authenticator<unknown> | null = null;
    if (token !== null) {
      for (const k of this.kinds) {
        if (k.matches(token)) {
          kind = k;
          break;
        }
      }
    }
    return { header, token, kind };
  }
}
