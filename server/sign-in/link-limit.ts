import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '@/db/client';
import { AppError } from '@/server/http/errors';
import { mailboxKey, signInAddress } from './sign-in-address';

const WINDOW_S = 15 * 60;

type Budget = { prefix: string; perAddress: number; perIp: number; what: string };

/** Email links cost a mail each. */
const LINKS: Budget = { prefix: 'signin', perAddress: 5, perIp: 30, what: 'sign-in links requested' };
/** The first step (auth.start) mails nothing but stores an SSO request and tells SSO domains apart: a looser budget. */
const STARTS: Budget = { prefix: 'signin-start', perAddress: 10, perIp: 60, what: 'sign-in attempts' };

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

/**
 * Counts one request against the client IP and the mailbox the address delivers to (counted in
 * Postgres, so every instance agrees). The address is validated first (400 naming `email`) so
 * the key is the address next-auth will mail; beyond the budget: 429 rate_limited.
 */
async function consume(pool: pg.Pool, budget: Budget, accountId: string, email: string, ip: string) {
  const address = signInAddress(email);
  try {
    await limiter(pool, `${budget.prefix}-ip`, budget.perIp).consume(`${accountId}|${ip}`);
    await limiter(pool, `${budget.prefix}-email`, budget.perAddress).consume(`${accountId}|${mailboxKey(address)}`);
  } catch (e) {
    if (!(e instanceof RateLimiterRes)) throw e;
    throw new AppError(429, 'rate_limited', `Too many ${budget.what}; try again in ${Math.ceil(e.msBeforeNext / 60_000)} minutes`, { retryAfter: Math.ceil(e.msBeforeNext / 1000) });
  }
  return address;
}

/** Sign-in links: at most 5 per mailbox and 30 per client IP every 15 minutes. Returns the normalized address. */
export const consumeLinkRequest = (pool: pg.Pool, accountId: string, email: string, ip: string) => consume(pool, LINKS, accountId, email, ip);

/** auth.start: at most 10 per mailbox and 60 per client IP every 15 minutes. Returns the normalized address. */
export const consumeStartRequest = (db: Db, accountId: string, email: string, ip: string) =>
  // drizzle keeps the pool it was built on as $client; the counters live in the same database.
  consume((db as Db & { $client: pg.Pool }).$client, STARTS, accountId, email, ip);
