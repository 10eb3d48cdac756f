import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type pg from 'pg';
import type { Db } from '@/db/client';
import type { Actor } from '@/server/access/actor';
import { AppError, BareRefusal } from './errors';

const envInt = (name: string, fallback: number) => {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

/** Points an instance reserves from Postgres at once: about 2% of the limit, 1 for small limits. */
const chunkFor = (limit: number) => Math.max(1, Math.floor(limit / 50));

/** Whose counters: an account, with its overrides. */
export type RateSubject = Pick<Actor, 'accountId'> & { account: Pick<Actor['account'], 'rateLimitReads' | 'rateLimitWrites'> };

type Lease = { remaining: number; expiresAt: number; lastKnownLeft: number };

/**
 * Per account, client IP and path (the route template, so ids cannot be used to
 * dodge the limit): 1,000 reads and 50 writes a minute unless the environment or
 * the account overrides.
 *
 * Counters live in Postgres (rate-limiter-flexible's store) so several instances share
 * them. To avoid a write per request, an instance reserves a small chunk of points at
 * once and spends it locally; near the limit it reserves one point at a time, so the
 * refusal lands exactly at the limit. Unused reserved points can make other instances
 * refuse at most a chunk per instance early.
 */
export class RateLimits {
  private limiters = new Map<string, RateLimiterPostgres>();
  private leases = new Map<string, Lease>();
  private inflight = new Map<string, Promise<void>>();
  /** Client IPs past their failed-authentication budget, until when (ms); learnt from the shared counter. */
  private lockouts = new Map<string, number>();
  defaults: { reads: number; writes: number; anonymousWrites?: number; failedAuth?: number } = {
    reads: envInt('RATE_LIMIT_READS_PER_MINUTE', 1000),
    writes: envInt('RATE_LIMIT_WRITES_PER_MINUTE', 50),
    // Posts without a credential (the SAML ACS above all) per client IP: a company behind one address signs in together.
    anonymousWrites: envInt('RATE_LIMIT_ANONYMOUS_WRITES_PER_MINUTE', 600),
    failedAuth: envInt('RATE_LIMIT_FAILED_AUTH_PER_MINUTE', 30),
  };

  constructor(private readonly pool: pg.Pool) {}

  private limiter(kind: 'r' | 'w' | 'f', points: number) {
    const id = `${kind}${points}`;
    let l = this.limiters.get(id);
    if (!l) {
      l = new RateLimiterPostgres({
        storeClient: this.pool,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        keyPrefix: id,
        points,
        duration: 60,
        clearExpiredByTimeout: false,
        // If Postgres is unreachable, count in memory rather than refuse or fail every request.
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: id, points, duration: 60 }),
      });
      this.limiters.set(id, l);
    }
    return l;
  }

  /**
   * Spends one point; undefined when a local lease had it (the common case: no promise, nothing
   * to wait for), else a promise that settles once points were reserved (or rejects with 429).
   */
  consume(actor: RateSubject, method: string, routePath: string, ip: string): Promise<void> | undefined {
    const write = method !== 'GET' && method !== 'HEAD';
    const limit = write
      ? (actor.account.rateLimitWrites ?? this.defaults.writes)
      : (actor.account.rateLimitReads ?? this.defaults.reads);
    const kind = write ? 'w' : 'r';
    const verb = method === 'HEAD' ? 'GET' : method;
    // The same caller calling the same route again (the common case under load) reuses its keys:
    // building and hashing them again was a visible share of a request's time.
    let keys = this.lastKeys;
    if (!keys || keys.accountId !== actor.accountId || keys.ip !== ip || keys.verb !== verb || keys.routePath !== routePath || keys.limit !== limit) {
      const key = `${actor.accountId}|${ip}|${verb} ${routePath}`;
      keys = this.lastKeys = { accountId: actor.accountId, ip, verb, routePath, limit, key, leaseKey: `${kind}${limit}|${key}` };
    }
    const lease = this.leases.get(keys.leaseKey);
    if (lease && lease.remaining > 0 && Date.now() < lease.expiresAt) {
      lease.remaining--;
      return undefined;
    }
    return this.consumeSlowly(kind, limit, keys.key, keys.leaseKey);
  }

  private lastKeys: { accountId: string; ip: string; verb: string; routePath: string; limit: number; key: string; leaseKey: string } | undefined;

  private async consumeSlowly(kind: 'r' | 'w', limit: number, key: string, leaseKey: string): Promise<void> {
    for (;;) {
      const lease = this.leases.get(leaseKey);
      if (lease && lease.remaining > 0 && Date.now() < lease.expiresAt) {
        lease.remaining--;
        return;
      }
      const pending = this.inflight.get(leaseKey);
      if (pending) {
        await pending;
        continue;
      }
      const reservation = this.reserve(kind, limit, key, leaseKey, lease);
      this.inflight.set(leaseKey, reservation);
      try {
        await reservation;
      } finally {
        this.inflight.delete(leaseKey);
      }
    }
  }

  private async reserve(kind: 'r' | 'w', limit: number, key: string, leaseKey: string, previous: Lease | undefined) {
    const fresh = !previous || Date.now() >= previous.expiresAt;
    const chunk = !fresh && previous.lastKnownLeft < 2 * chunkFor(limit) ? 1 : chunkFor(limit);
    try {
      const res = await this.limiter(kind, limit).consume(key, chunk);
      this.leases.set(leaseKey, { remaining: chunk, expiresAt: Date.now() + res.msBeforeNext, lastKnownLeft: res.remainingPoints });
      if (this.leases.size > 50_000) this.dropExpired();
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      if (chunk > 1 && e.consumedPoints - chunk < limit) {
        // The chunk did not fit but single points may: the store already counted the
        // chunk, so hand back what this instance will not use.
        await this.limiter(kind, limit).reward(key, chunk);
        this.leases.set(leaseKey, { remaining: 0, expiresAt: Date.now() + e.msBeforeNext, lastKnownLeft: 0 });
        return;
      }
      this.leases.delete(leaseKey);
      const retryAfterS = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      const resetAt = Math.ceil((Date.now() + e.msBeforeNext) / 1000);
      throw new BareRefusal(
        429,
        { ok: false, error: `Rate limit of ${limit} ${kind === 'w' ? 'writes' : 'reads'} per minute exceeded`, retryAfter: resetAt },
        {
          'Retry-After': String(retryAfterS),
          'X-RateLimit-Limit': String(limit),
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': String(resetAt),
        },
      );
    }
  }

  /**
   * Counts one failed authentication (a presented credential refused with 401) for the client IP,
   * in Postgres so every instance and process agrees. Past the per-minute budget that failure is
   * answered 429 instead of 401 until the window ends, without another write while this instance
   * knows the window. Successful authentications are never refused by this count: many people can
   * share one address (a company NAT, a proxy without TRUST_PROXY), and one of them guessing must
   * not lock the others out.
   */
  async countFailedAuthentication(ip: string): Promise<void> {
    const known = this.lockouts.get(ip);
    if (known !== undefined && Date.now() < known) throw this.failedAuthRefusal(known - Date.now());
    const limit = this.defaults.failedAuth ?? envInt('RATE_LIMIT_FAILED_AUTH_PER_MINUTE', 30);
    try {
      await this.limiter('f', limit).consume(ip, 1);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      this.lockouts.set(ip, Date.now() + e.msBeforeNext);
      if (this.lockouts.size > 50_000) {
        const now = Date.now();
        for (const [k, until] of this.lockouts) if (now >= until) this.lockouts.delete(k);
      }
      throw this.failedAuthRefusal(e.msBeforeNext);
    }
  }

  private failedAuthRefusal(msBeforeNext: number) {
    const limit = this.defaults.failedAuth ?? envInt('RATE_LIMIT_FAILED_AUTH_PER_MINUTE', 30);
    const resetAt = Math.ceil((Date.now() + msBeforeNext) / 1000);
    return new BareRefusal(
      429,
      { ok: false, error: `More than ${limit} failed authentications from this address in a minute; retry later`, retryAfter: resetAt },
      {
        'Retry-After': String(Math.max(1, Math.ceil(msBeforeNext / 1000))),
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(resetAt),
      },
    );
  }

  private dropExpired() {
    const now = Date.now();
    for (const [k, l] of this.leases) if (now >= l.expiresAt) this.leases.delete(k);
  }
}

/*
 * Budgets over a window, for sends that cost someone something (a verification code texted or
 * mailed, a sign-in link, a notice): each send is counted against several keys at once — the
 * destination it goes to (normalised, in the account and across the deployment), the user who
 * asked, the caller's address — in Postgres, so every instance agrees. Counting is the same
 * RateLimiterPostgres store the kernel's limits use, written once here for every such budget.
 */

/** The pool a Db was built on (drizzle keeps it as $client): the budgets' counters live in the same database. */
export const poolOf = (db: Db): pg.Pool => (db as Db & { $client: pg.Pool }).$client;

/** One budget: `points` sends per `windowS` seconds, counted under `prefix`. */
export type SendBudget = { prefix: string; points: number; windowS: number };

const budgetLimiters = new WeakMap<pg.Pool, Map<string, RateLimiterPostgres>>();

function budgetLimiter(pool: pg.Pool, b: SendBudget): RateLimiterPostgres {
  let byPrefix = budgetLimiters.get(pool);
  if (!byPrefix) budgetLimiters.set(pool, (byPrefix = new Map()));
  const id = `${b.prefix}:${b.points}:${b.windowS}`;
  let l = byPrefix.get(id);
  if (!l) {
    l = new RateLimiterPostgres({ storeClient: pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true, keyPrefix: b.prefix, points: b.points, duration: b.windowS, clearExpiredByTimeout: false });
    byPrefix.set(id, l);
  }
  return l;
}

/**
 * 429 `rate_limited` for a send over its budget: `retryAfter` (body) is the Unix time at which to
 * retry, `Retry-After` (header) the seconds until then (reply.ts sets it from `retryAfter`).
 */
export const sendRefused = (what: string, msBeforeNext: number) =>
  new AppError(429, 'rate_limited', `Too many ${what}; try again in ${Math.max(1, Math.ceil(msBeforeNext / 60_000))} minutes`, {
    retryAfter: Math.ceil((Date.now() + msBeforeNext) / 1000),
  });

/**
 * Counts one send against each budget and key, in order; the first one spent refuses it (429
 * rate_limited, naming `what`). Keys already counted stay counted: a refused request still costs.
 */
export async function consumeSendBudgets(pool: pg.Pool, keys: ReadonlyArray<{ budget: SendBudget; key: string }>, what: string): Promise<void> {
  for (const { budget, key } of keys) {
    try {
      await budgetLimiter(pool, budget).consume(key);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      throw sendRefused(what, e.msBeforeNext);
    }
  }
}

/** Whether one more send fits every budget, counting it when it does (a send that may be skipped, never refused to a caller). */
export async function trySendBudgets(pool: pg.Pool, keys: ReadonlyArray<{ budget: SendBudget; key: string }>): Promise<boolean> {
  try {
    await consumeSendBudgets(pool, keys, 'sends');
    return true;
  } catch (e) {
    if (e instanceof AppError && e.status === 429) return false;
    throw e;
  }
}

/** How much of a budget a key has used in its current window (0 when none). */
export async function budgetUsed(pool: pg.Pool, budget: SendBudget, key: string): Promise<number> {
  const res = await budgetLimiter(pool, budget).get(key);
  return res?.consumedPoints ?? 0;
}
