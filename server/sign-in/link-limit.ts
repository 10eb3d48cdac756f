import type pg from 'pg';
import type { Db } from '@/db/client';
import { consumeSendBudgets, poolOf, type SendBudget } from '@/server/http/rate-limit';
import { mailboxKey, signInAddress } from './sign-in-address';

const WINDOW_S = 15 * 60;
/**
 * Sign-ins per client IP every 15 minutes (STEWARD_SIGN_IN_PER_IP, default 30 links, twice as many
 * first steps): many people behind one address (an office's NAT, an end-to-end run) may need more.
 */
const perIp = () => {
  const n = Number(process.env.STEWARD_SIGN_IN_PER_IP);
  return Number.isInteger(n) && n > 0 ? n : 30;
};

type Budgets = { what: string; ip: SendBudget; mailbox: SendBudget; anywhere: SendBudget };

/** Email links cost a mail each: per client IP and per mailbox in the account, and per mailbox across the deployment. */
const LINKS = (): Budgets => ({
  what: 'sign-in links requested',
  ip: { prefix: 'signin-ip', points: perIp(), windowS: WINDOW_S },
  mailbox: { prefix: 'signin-email', points: 5, windowS: WINDOW_S },
  anywhere: { prefix: 'signin-email-all', points: 10, windowS: 60 * 60 },
});
/** The first step (auth.start) mails nothing but stores an SSO request and tells SSO domains apart: a looser budget. */
const STARTS = (): Budgets => ({
  what: 'sign-in attempts',
  ip: { prefix: 'signin-start-ip', points: 2 * perIp(), windowS: WINDOW_S },
  mailbox: { prefix: 'signin-start-email', points: 10, windowS: WINDOW_S },
  anywhere: { prefix: 'signin-start-email-all', points: 40, windowS: 60 * 60 },
});

/**
 * Counts one request against the client IP and the mailbox the address delivers to, in the account
 * and across the deployment (server/http/rate-limit.ts: counted in Postgres, so every instance
 * agrees). The address is validated first (400 naming `email`) so the key is the address next-auth
 * will mail; beyond the budget: 429 rate_limited with Retry-After.
 */
async function consume(pool: pg.Pool, b: Budgets, accountId: string, email: string, ip: string) {
  const address = signInAddress(email);
  const mailbox = mailboxKey(address);
  await consumeSendBudgets(
    pool,
    [
      { budget: b.ip, key: `${accountId}|${ip}` },
      { budget: b.mailbox, key: `${accountId}|${mailbox}` },
      { budget: b.anywhere, key: mailbox },
    ],
    b.what,
  );
  return address;
}

/** Sign-in links: at most 5 per mailbox and STEWARD_SIGN_IN_PER_IP (30) per client IP every 15 minutes (10 an hour per mailbox across accounts). Returns the normalized address. */
export const consumeLinkRequest = (pool: pg.Pool, accountId: string, email: string, ip: string) => consume(pool, LINKS(), accountId, email, ip);

/** auth.start: at most 10 per mailbox and twice STEWARD_SIGN_IN_PER_IP (60) per client IP every 15 minutes. Returns the normalized address. */
export const consumeStartRequest = (db: Db, accountId: string, email: string, ip: string) => consume(poolOf(db), STARTS(), accountId, email, ip);
