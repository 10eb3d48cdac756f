import { and, eq, inArray, or } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { activeMemberships } from '@/db/queries/memberships';
import { policySettings, type PolicyRow } from '@/db/schema';
import { SWITCHES, type Switch } from './contracts';

/** The policy rows that apply, top tier first: account, organization, team. */
export async function policyChain(db: Tx, scope: { accountId: string; organizationId: string | null; teamId: string | null }): Promise<PolicyRow[]> {
  const rows = await db
    .select()
    .from(policySettings)
    .where(
      or(
        and(eq(policySettings.level, 'account'), eq(policySettings.ownerId, scope.accountId)),
        scope.organizationId ? and(eq(policySettings.level, 'organization'), eq(policySettings.ownerId, scope.organizationId)) : undefined,
        scope.teamId ? and(eq(policySettings.level, 'team'), eq(policySettings.ownerId, scope.teamId)) : undefined,
      ),
    );
  const order = { account: 0, organization: 1, team: 2 } as const;
  return rows.filter((r) => r.accountId === scope.accountId).sort((a, b) => order[a.level] - order[b.level]);
}

/** The tier that locked a switch, if any (the highest one wins). */
export function lockedAt(chain: PolicyRow[], s: Switch): PolicyRow | null {
  return chain.find((r) => r.capabilities[`${s}Locked`] === true) ?? null;
}

/**
 * The one resolution every capability calls. A lock pins the locking tier's value and tiers
 * below it are ignored; otherwise an `off` at any tier wins; with no setting anywhere a switch is on.
 * Allowlists intersect across tiers (an empty or missing one allows every origin), blocklists add up.
 */
export function resolveCapabilities(chain: PolicyRow[]) {
  const capabilities = {} as Record<Switch, 'on' | 'off'>;
  for (const s of SWITCHES) {
    const lock = lockedAt(chain, s);
    const tiers = lock ? chain.slice(0, chain.indexOf(lock) + 1) : chain;
    capabilities[s] = tiers.some((r) => r.capabilities[s] === 'off') ? 'off' : 'on';
  }
  let allowlist: string[] | null = null;
  const blocklist = new Set<string>();
  for (const r of chain) {
    const d = r.capabilities.workspaceHandoffDomains as { allowlist?: string[]; blocklist?: string[] } | undefined;
    if (d?.allowlist?.length) allowlist = allowlist === null ? [...d.allowlist] : allowlist.filter((o) => d.allowlist!.includes(o));
    for (const b of d?.blocklist ?? []) blocklist.add(b);
  }
  return { capabilities, workspaceHandoffDomains: { allowlist, blocklist: [...blocklist] } };
}

/** The approval mode for an action type: a locked cell from the top pins it; else the lowest tier that set one; else null (the product default). */
export function resolveApprovalMode(chain: PolicyRow[], actionType: string): { mode: string | null; timeBoxedWindowMin: number | null } {
  const locked = chain.find((r) => r.matrix?.[actionType]?.locked);
  if (locked) return { mode: locked.matrix![actionType].mode, timeBoxedWindowMin: locked.matrix![actionType].timeBoxedWindowMin };
  for (const r of [...chain].reverse()) {
    const cell = r.matrix?.[actionType];
    if (cell?.mode) return { mode: cell.mode, timeBoxedWindowMin: cell.timeBoxedWindowMin };
  }
  return { mode: null, timeBoxedWindowMin: null };
}

/**
 * Every policy row that applies to one user: the account's, the organization's and one per
 * team the user is an active member of (a user on several teams is bound by each of them).
 */
export async function policyRowsForUser(db: Tx, user: { id: string; accountId: string; organizationId: string | null }): Promise<PolicyRow[]> {
  const teamIds = (await activeMemberships(db, user.id)).filter((r) => r.t.accountId === user.accountId).map((r) => r.t.id);
  return db
    .select()
    .from(policySettings)
    .where(
      and(
        eq(policySettings.accountId, user.accountId),
        or(
          and(eq(policySettings.level, 'account'), eq(policySettings.ownerId, user.accountId)),
          user.organizationId ? and(eq(policySettings.level, 'organization'), eq(policySettings.ownerId, user.organizationId)) : undefined,
          teamIds.length ? and(eq(policySettings.level, 'team'), inArray(policySettings.ownerId, teamIds)) : undefined,
        ),
      ),
    );
}
