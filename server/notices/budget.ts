import type pg from 'pg';
import type { Db } from '@/db/client';
import { trySendBudgets, type SendBudget } from '@/server/http/rate-limit';

/*
 * What Steward sends to a person on its own initiative (notices, approval requests by text) is
 * limited per destination too (issue 40): what makes a notice — a stranger's message, a staged
 * action — can come from outside, and each text costs money and lands on someone's phone. Past
 * the budget a text is not sent (a notice falls back to email, an approval waits in the email and
 * the app), and past the mail budget a notice stays in the app only. Counted in Postgres per
 * destination (the normalised number or address) and account, and across the deployment.
 */
const HOUR = 60 * 60;
const TEXTS: SendBudget = { prefix: 'notice-text', points: 20, windowS: HOUR };
const TEXTS_ANYWHERE: SendBudget = { prefix: 'notice-text-all', points: 40, windowS: HOUR };
const MAILS: SendBudget = { prefix: 'notice-mail', points: 60, windowS: HOUR };
const MAILS_ANYWHERE: SendBudget = { prefix: 'notice-mail-all', points: 120, windowS: HOUR };

const poolOf = (db: Db) => (db as Db & { $client: pg.Pool }).$client;

/** Counts one text to `to` and answers whether it may go. */
export const noticeTextAllowed = (db: Db, accountId: string, to: string) => {
  const dest = to.trim();
  return trySendBudgets(poolOf(db), [
    { budget: TEXTS, key: `${accountId}|${dest}` },
    { budget: TEXTS_ANYWHERE, key: dest },
  ]);
};

/** Counts one notice mail to `to` and answers whether it may go. */
export const noticeMailAllowed = (db: Db, accountId: string, to: string) => {
  const dest = to.trim().toLowerCase();
  return trySendBudgets(poolOf(db), [
    { budget: MAILS, key: `${accountId}|${dest}` },
    { budget: MAILS_ANYWHERE, key: dest },
  ]);
};

export const NOTICE_LIMITED = 'rate_limited: too many notices to this destination in the last hour';
