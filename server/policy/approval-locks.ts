import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, autonomyModes, organizations, policySettings, type AutonomyMode } from '@/db/schema';
import { badRequest, notFound } from '@/server/http/errors';
import { ACTION_TYPES } from './contracts';
import { writePolicy } from './team-policy';
import { ADMIN_CLI, recordAudit } from '@/server/audit/record';
import { assertOperates, type AccountOperator } from '@/server/accounts/operator';

export type ApprovalLockInput = {
  accountId: string;
  organizationId?: string;
  actionType: string;
  /** Absent with `clear`. */
  mode?: string;
  timeBoxedWindowMin?: number | null;
  clear: boolean;
};

/**
 * The console's account and organization locks on one action type (admin CLI
 * `set-approval-lock`, the console's policy page). A lock is a floor: members cannot go looser, and it wins over their
 * cells and recipient exceptions. Clearing removes the tier's cell for that action type.
 */
export async function setApprovalLock(db: Db, input: ApprovalLockInput, by: AccountOperator = ADMIN_CLI) {
  assertOperates(by, input.accountId);
  if (!(ACTION_TYPES as readonly string[]).includes(input.actionType)) throw badRequest(`--action must be one of ${ACTION_TYPES.join(', ')}`);
  let mode: AutonomyMode | null = null;
  if (!input.clear) {
    if (!(autonomyModes as readonly string[]).includes(input.mode ?? '')) throw badRequest(`--mode must be one of ${autonomyModes.join(', ')} (or pass --clear)`);
    mode = input.mode as AutonomyMode;
    if (mode === 'time-boxed' && !input.timeBoxedWindowMin) throw badRequest('--window (minutes) is required with --mode time-boxed');
  }
  return db.transaction(async (tx) => {
    const [account] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId));
    if (!account) throw notFound('Account');
    if (input.organizationId) {
      const [org] = await tx
        .select({ id: organizations.id })
        .from(organizations)
        .where(and(eq(organizations.id, input.organizationId), eq(organizations.accountId, account.id)));
      if (!org) throw notFound('Organization');
    }
    const level = input.organizationId ? ('organization' as const) : ('account' as const);
    const ownerId = input.organizationId ?? account.id;
    await writePolicy(tx, level, ownerId, account.id, {});
    const [row] = await tx
      .select()
      .from(policySettings)
      .where(and(eq(policySettings.level, level), eq(policySettings.ownerId, ownerId)))
      .for('update');
    const matrix = { ...(row.matrix ?? {}) };
    const before = matrix[input.actionType] ?? null;
    if (mode === null) delete matrix[input.actionType];
    else matrix[input.actionType] = { mode, timeBoxedWindowMin: mode === 'time-boxed' ? input.timeBoxedWindowMin! : null, locked: true };
    await writePolicy(tx, level, ownerId, account.id, { matrix });
    await recordAudit(tx, by, 'approval_lock.changed', { type: level, id: ownerId }, { accountId: account.id, organizationId: input.organizationId ?? null, before: { actionType: input.actionType, lock: before }, after: { actionType: input.actionType, lock: matrix[input.actionType] ?? null } });
    return {
      accountId: account.id,
      organizationId: input.organizationId ?? null,
      actionType: input.actionType,
      lock: mode === null ? null : { mode, timeBoxedWindowMin: matrix[input.actionType].timeBoxedWindowMin },
    };
  });
}

/** The locks the account and its organizations hold, by action type: what the console's policy page shows. */
export async function listApprovalLocks(db: Db, accountId: string, by: AccountOperator = ADMIN_CLI) {
  assertOperates(by, accountId);
  const rows = await db
    .select({ level: policySettings.level, ownerId: policySettings.ownerId, matrix: policySettings.matrix, organizationName: organizations.name })
    .from(policySettings)
    .leftJoin(organizations, and(eq(policySettings.level, 'organization'), eq(organizations.id, policySettings.ownerId)))
    .where(and(eq(policySettings.accountId, accountId), inArray(policySettings.level, ['account', 'organization'])));
  const locks = rows.flatMap((r) =>
    Object.entries(r.matrix ?? {})
      .filter(([, cell]) => cell.locked === true && cell.mode !== null)
      .map(([actionType, cell]) => ({
        level: r.level as 'account' | 'organization',
        organizationId: r.level === 'organization' ? r.ownerId : null,
        organizationName: r.organizationName ?? null,
        actionType,
        mode: cell.mode as AutonomyMode,
        timeBoxedWindowMin: cell.timeBoxedWindowMin,
      })),
  );
  // The account's first, then by organization and action type: a stable table.
  locks.sort((a, b) => (a.level === b.level ? 0 : a.level === 'account' ? -1 : 1) || (a.organizationName ?? '').localeCompare(b.organizationName ?? '') || a.actionType.localeCompare(b.actionType));
  return { ok: true as const, actionTypes: [...ACTION_TYPES], modes: [...autonomyModes], locks };
}
