import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '@/db/client';
import { AppError } from '@/server/http/errors';

/*
 * How often a code may be sent (each one is a mail to someone's mailbox): per identifier, and per
 * client address when the caller knows a trustworthy one (the hosted app does: Steward's front
 * sets it). Counted in Postgres, so every instance agrees.
 */
const WINDOW_S = 15 * 60;
export const CODES_PER_IDENTIFIER = 5;
export const CODES_PER_ADDRESS = 30;

const limiters = new WeakMap<pg.Pool, Map<string, RateLimiterPostgres>>();

function limiter(pool: pg.Pool, keyPrefix: string, points: number) {
  let byPrefix = limiters.get(pool);
  if (!byPrefix) limiters.set(pool, (byPrefix = new Map()));
  let l = byPrefix.get(keyPrefix);
  if (!l) {
    l = new RateLimiterPostgres({ storeClient: pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true, keyPrefix, points, duration: WINDOW_S, clearExpiredByTimeout: false });
    byPrefix.set(keyPrefix, l);
  }
  return l;
}

/** Counts one code request; beyond the budget, 429 rate_limited with when to retry. */
export async function consumeCodeRequest(db: Db, accountId: string, identifierId: string, ip: string | null): Promise<void> {
  // drizzle keeps the pool it was built on as $client; the counters live in the same database.
  const pool = (db as Db & { $client: pg.Pool }).$client;
  try {
    if (ip) await limiter(pool, 'idcode-ip', CODES_PER_ADDRESS).consume(`${accountId}|${ip}`);
    await limiter(pool, 'idcode-identifier', CODES_PER_IDENTIFIER).consume(`${accountId}|${identifierId}`);
  } catch (e) {
    if (!(e instanceof RateLimiterRes)) throw e;
    throw new AppError(429, 'rate_limited', `Too many codes asked for; try again in ${Math.ceil(e.msBeforeNext / 60_000)} minutes`, {
      retryAfter: Math.ceil((Date.now() + e.msBeforeNext) / 1000),
    });
  }
}
