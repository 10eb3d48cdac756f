import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type pg from 'pg';
import type { Actor } from '@/server/access/actor';
import { BareRefusal } from './errors';

const envInt = (name: string, fallback: number) => {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

/**
 * Per account, client IP and path (the route template, so ids cannot be used to
 * dodge the limit): 1,000 reads and 50 writes a minute unless the environment or
 * the account overrides. Counters live in Postgres so several instances share them.
 */
export class RateLimits {
  private limiters = new Map<string, RateLimiterPostgres>();
  defaults = {
    reads: envInt('RATE_LIMIT_READS_PER_MINUTE', 1000),
    writes: envInt('RATE_LIMIT_WRITES_PER_MINUTE', 50),
  };

  constructor(private readonly pool: pg.Pool) {}

  private limiter(kind: 'r' | 'w', points: number) {
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

  async consume(actor: Actor, method: string, routePath: string, ip: string): Promise<void> {
    const write = method !== 'GET' && method !== 'HEAD';
    const limit = write
      ? (actor.account.rateLimitWrites ?? this.defaults.writes)
      : (actor.account.rateLimitReads ?? this.defaults.reads);
    const key = `${actor.accountId}|${ip}|${method === 'HEAD' ? 'GET' : method} ${routePath}`;
    try {
      await this.limiter(write ? 'w' : 'r', limit).consume(key, 1);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const retryAfterS = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      const resetAt = Math.ceil((Date.now() + e.msBeforeNext) / 1000);
      throw new BareRefusal(
        429,
        { ok: false, error: `Rate limit of ${limit} ${write ? 'writes' : 'reads'} per minute exceeded`, retryAfter: resetAt },
        {
          'Retry-After': String(retryAfterS),
          'X-RateLimit-Limit': String(limit),
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': String(resetAt),
        },
      );
    }
  }
}
