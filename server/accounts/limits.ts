import { eq } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { accounts, type AccountLimits } from '@/db/schema';
import { badRequest, notFound } from '@/server/http/errors';
import { ADMIN_CLI, recordAudit } from '@/server/audit/record';
import { assertOperates, type AccountOperator } from './operator';

/*
 * The limits that keep one run, one task tree, one user and one account from taking more than
 * their share (spec 5, Limits). Each has a deployment default from the environment and may be
 * overridden per account through the admin CLI (`set-limits`) or the console; the override is kept on the account.
 */

export type Limits = Required<AccountLimits> & { browsersMax: number };

type LimitKey = keyof Required<AccountLimits>;

/** Each per-account limit, its environment variable and its default (the spec's names and values). */
export const LIMIT_VARIABLES: Record<LimitKey, { env: string; fallback: number }> = {
  runMaxModelCalls: { env: 'STEWARD_RUN_MAX_MODEL_CALLS', fallback: 50 },
  runMaxToolCalls: { env: 'STEWARD_RUN_MAX_TOOL_CALLS', fallback: 200 },
  taskTreeMax: { env: 'STEWARD_TASK_TREE_MAX', fallback: 50 },
  userMaxConcurrentRuns: { env: 'STEWARD_USER_MAX_CONCURRENT_RUNS', fallback: 4 },
  browsersPerAccount: { env: 'STEWARD_BROWSERS_PER_ACCOUNT', fallback: 20 },
};

const positive = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return raw !== undefined && raw.trim() !== '' && Number.isInteger(n) && n > 0 ? n : fallback;
};

/** The deployment's limits as the environment sets them (read on every call: cheap, and tests may change them). */
export function deploymentLimits(env: Record<string, string | undefined> = process.env): Limits {
  const out = Object.fromEntries(Object.entries(LIMIT_VARIABLES).map(([k, v]) => [k, positive(env[v.env], v.fallback)])) as Required<AccountLimits>;
  return { ...out, browsersMax: positive(env.STEWARD_BROWSERS_MAX, 50) };
}

/** The limits in force for one account: its overrides over the deployment's defaults. */
export async function limitsFor(db: Tx, accountId: string): Promise<Limits> {
  const [row] = await db.select({ limits: accounts.limits }).from(accounts).where(eq(accounts.id, accountId));
  return { ...deploymentLimits(), ...(row?.limits ?? {}) };
}

/**
 * The console's limits (admin CLI `set-limits`, the console's limits page): positive integers set
 * an override, null removes it, absent leaves it. Recorded as `limits.changed` with who did it.
 */
export async function setAccountLimits(db: Db, accountId: string, changes: Partial<Record<LimitKey, number | null>>, by: AccountOperator = ADMIN_CLI) {
  assertOperates(by, accountId);
  for (const [k, v] of Object.entries(changes) as [LimitKey, number | null | undefined][]) {
    if (!(k in LIMIT_VARIABLES)) throw badRequest(`${k}: not a limit (${Object.keys(LIMIT_VARIABLES).join(', ')})`);
    if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 1)) throw badRequest(`${k}: must be a positive integer`);
  }
  return db.transaction(async (tx) => {
    const [row] = await tx.select({ limits: accounts.limits }).from(accounts).where(eq(accounts.id, accountId)).for('update');
    if (!row) throw notFound('Account');
    const next: AccountLimits = { ...row.limits };
    for (const [k, v] of Object.entries(changes) as [LimitKey, number | null | undefined][]) {
      if (v === null) delete next[k];
      else if (v !== undefined) next[k] = v;
    }
    await tx.update(accounts).set({ limits: next }).where(eq(accounts.id, accountId));
    await recordAudit(tx, by, 'limits.changed', { type: 'account', id: accountId }, { accountId, before: { overrides: row.limits }, after: { overrides: next } });
    return { accountId, limits: { ...deploymentLimits(), ...next }, overrides: next };
  });
}

/** The account's limits as the console shows them: the deployment's defaults, its overrides, and what is in force. */
export async function accountLimits(db: Db, accountId: string, by: AccountOperator = ADMIN_CLI) {
  assertOperates(by, accountId);
  const [row] = await db.select({ limits: accounts.limits }).from(accounts).where(eq(accounts.id, accountId));
  if (!row) throw notFound('Account');
  const deployment = deploymentLimits();
  return { ok: true as const, deployment, overrides: row.limits, limits: { ...deployment, ...row.limits } };
}
