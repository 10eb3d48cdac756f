import type { Db } from '@/db/client';
import { budgetUsed, consumeSendBudgets, poolOf, type SendBudget } from '@/server/http/rate-limit';

/*
 * How often a code may be sent (each one is a text or a mail to someone's number or mailbox, which
 * costs the deployment and can be used to flood a stranger: issue 40, "SMS pumping"). Counted
 * against the destination itself — the normalised number or address, whichever identifier row
 * holds it (deleting and adding the identifier again starts nothing anew) — in the account and
 * across the deployment, against the user who asks, and against the caller's address (the API's
 * too: the kernel's client address, X-Forwarded-For only behind TRUST_PROXY). Wrong codes are
 * counted per destination too: a new code does not bring the tries back within the window.
 * Counted in Postgres (server/http/rate-limit.ts), so every instance agrees.
 */
const WINDOW_S = 15 * 60;
export const CODES_PER_DESTINATION = 5;
export const CODES_PER_DESTINATION_DEPLOYMENT = 10;
export const CODES_PER_USER = 10;
export const CODES_PER_ADDRESS = 30;
export const WRONG_CODES_PER_DESTINATION = 5;

const DESTINATION: SendBudget = { prefix: 'idcode-dest', points: CODES_PER_DESTINATION, windowS: WINDOW_S };
const DESTINATION_ANYWHERE: SendBudget = { prefix: 'idcode-dest-all', points: CODES_PER_DESTINATION_DEPLOYMENT, windowS: 60 * 60 };
const USER: SendBudget = { prefix: 'idcode-user', points: CODES_PER_USER, windowS: WINDOW_S };
const ADDRESS: SendBudget = { prefix: 'idcode-ip', points: CODES_PER_ADDRESS, windowS: WINDOW_S };
const WRONG: SendBudget = { prefix: 'idcode-wrong', points: WRONG_CODES_PER_DESTINATION, windowS: WINDOW_S };

export type CodeRequest = { accountId: string; userId: string; type: string; value: string; ip: string | null };

const destination = (r: Pick<CodeRequest, 'type' | 'value'>) => `${r.type}:${r.value.trim().toLowerCase()}`;

/** Counts one code request; beyond any budget, 429 rate_limited with when to retry. */
export async function consumeCodeRequest(db: Db, r: CodeRequest): Promise<void> {
  const to = destination(r);
  await consumeSendBudgets(
    poolOf(db),
    [
      ...(r.ip ? [{ budget: ADDRESS, key: `${r.accountId}|${r.ip}` }] : []),
      { budget: USER, key: `${r.accountId}|${r.userId}` },
      { budget: DESTINATION, key: `${r.accountId}|${to}` },
      { budget: DESTINATION_ANYWHERE, key: to },
    ],
    'codes asked for',
  );
}

/** Wrong codes tried for this destination in the window (every code sent to it counts toward the same 5). */
export const wrongCodesFor = (db: Db, r: Pick<CodeRequest, 'accountId' | 'type' | 'value'>) => budgetUsed(poolOf(db), WRONG, `${r.accountId}|${destination(r)}`);

/** Counts one wrong code for the destination. */
export async function countWrongCode(db: Db, r: Pick<CodeRequest, 'accountId' | 'type' | 'value'>): Promise<number> {
  await consumeSendBudgets(poolOf(db), [{ budget: WRONG, key: `${r.accountId}|${destination(r)}` }], 'wrong codes').catch(() => undefined);
  return wrongCodesFor(db, r);
}
