import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '@/server/http/errors';

const WINDOW_S = 15 * 60;
const limiters = new WeakMap<pg.Pool, { perEmail: RateLimiterPostgres; perIp: RateLimiterPostgres }>();

function forPool(pool: pg.Pool) {
  let l = limiters.get(pool);
  if (!l) {
    const make = (keyPrefix: string, points: number) =>
      new RateLimiterPostgres({ storeClient: pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true, keyPrefix, points, duration: WINDOW_S, clearExpiredByTimeout: false });
    l = { perEmail: make('signin-email', 5), perIp: make('signin-ip', 30) };
    limiters.set(pool, l);
  }
  return l;
}

/**
 * Sign-in links cost a mail each: at most 5 per address and 30 per client IP every 15 minutes
 * (counted in Postgres, so every instance agrees). Beyond that: 429 rate_limited.
 */
export async function consumeLinkRequest(pool: pg.Pool, accountId: string, email: string, ip: string) {
  const { perEmail, perIp } = forPool(pool);
  try {
    await perIp.consume(`${accountId}|${ip}`);
    await perEmail.consume(`${accountId}|${email.trim().toLowerCase()}`);
  } catch (e) {
    if (!(e instanceof RateLimiterRes)) throw e;
    throw new AppError(429, 'rate_limited', `Too many sign-in links requested; try again in ${Math.ceil(e.msBeforeNext / 60_000)} minutes`, { retryAfter: Math.ceil(e.msBeforeNext / 1000) });
  }
}
