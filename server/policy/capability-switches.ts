import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import type { PolicyRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest, forbidden } from '@/server/http/errors';
import { organizationFor } from '@/server/organizations/access';
import { TIER_SWITCHES, type TierCapabilitiesPatch, type TierSwitch } from './capability-contracts';
import { policyChain, resolveCapabilities } from './resolve';
import { writePolicy } from './team-policy';
import { recordAudit } from '@/server/audit/record';

/*
 * The account and organization tiers of capability switches (until now only teams could write
 * theirs). Who: the account's own switches need an account-wide credential; an organization's
 * its admins, its organization key, or an account-wide credential (organizationFor). The one
 * resolution account → organization → team (resolve.ts) reads them: a lock pins the locking
 * tier's value and the tiers below are ignored; otherwise an `off` anywhere wins.
 */

type Tier = { level: 'account' | 'organization'; ownerId: string; accountId: string; organizationId: string | null };

/** The tier that locked a switch, highest first, or null. */
export function switchLockedAt(chain: readonly PolicyRow[], s: TierSwitch): PolicyRow | null {
  return chain.find((r) => r.capabilities[`${s}Locked`] === true) ?? null;
}

/** One switch resolved over a chain (top tier first), by the rule of resolve.ts. */
export function resolveSwitch(chain: readonly PolicyRow[], s: TierSwitch): 'on' | 'off' {
  const lock = switchLockedAt(chain, s);
  const tiers = lock ? chain.slice(0, chain.indexOf(lock) + 1) : chain;
  return tiers.some((r) => r.capabilities[s] === 'off') ? 'off' : 'on';
}

async function view(tx: Tx, tier: Tier) {
  const chain = await policyChain(tx, { accountId: tier.accountId, organizationId: tier.organizationId, teamId: null });
  const own = chain.find((r) => r.level === tier.level);
  const above = chain.filter((r) => r.level === 'account' && tier.level === 'organization');
  const capabilities: Record<string, unknown> = {};
  const lockedAbove: Record<string, { value: 'on' | 'off'; by: 'account' }> = {};
  for (const s of TIER_SWITCHES) {
    capabilities[s] = (own?.capabilities[s] as string | undefined) ?? null;
    capabilities[`${s}Locked`] = own?.capabilities[`${s}Locked`] === true;
    if (switchLockedAt(above, s)) lockedAbove[s] = { value: resolveSwitch(above, s), by: 'account' };
  }
  capabilities.workspaceHandoffDomains = own?.capabilities.workspaceHandoffDomains ?? { allowlist: [], blocklist: [] };
  const resolved = resolveCapabilities(chain);
  const effective = Object.fromEntries(TIER_SWITCHES.map((s) => [s, resolveSwitch(chain, s)])) as Record<TierSwitch, 'on' | 'off'>;
  return { ok: true as const, level: tier.level, ownerId: tier.ownerId, capabilities, lockedAbove, effective: { capabilities: effective, workspaceHandoffDomains: resolved.workspaceHandoffDomains } };
}

async function patch(db: Db, actor: Actor, tier: (tx: Tx) => Promise<Tier>, input: z.infer<typeof TierCapabilitiesPatch>) {
  return db.transaction(async (tx) => {
    const t = await tier(tx);
    const chain = await policyChain(tx, { accountId: t.accountId, organizationId: t.organizationId, teamId: null });
    const own = chain.find((r) => r.level === t.level);
    const above = t.level === 'organization' ? chain.filter((r) => r.level === 'account') : [];
    const sent = input as Record<string, unknown>;
    const capabilities: Record<string, unknown> = { ...(own?.capabilities ?? {}) };
    for (const s of TIER_SWITCHES) {
      if (sent[s] === undefined && sent[`${s}Locked`] === undefined) continue;
      if (switchLockedAt(above, s)) throw forbidden(`capabilities.${s}: locked by the account`);
      const value = sent[s] !== undefined ? sent[s] : capabilities[s];
      if (sent[`${s}Locked`] === true && (value === null || value === undefined)) throw badRequest(`capabilities.${s}Locked: a lock needs a value for ${s}`, { fields: [{ field: `capabilities.${s}Locked`, problem: `a lock needs a value for ${s}` }] });
      if (sent[s] !== undefined) capabilities[s] = sent[s];
      if (sent[`${s}Locked`] !== undefined) capabilities[`${s}Locked`] = sent[`${s}Locked`];
      // Inheriting again drops the lock that pinned the old value.
      if (capabilities[s] === null) capabilities[`${s}Locked`] = false;
    }
    if (input.workspaceHandoffDomains) capabilities.workspaceHandoffDomains = input.workspaceHandoffDomains;
    await writePolicy(tx, t.level, t.ownerId, t.accountId, { capabilities });
    await recordAudit(tx, actor, 'capabilities.changed', { type: t.level, id: t.ownerId }, { organizationId: t.organizationId, before: { capabilities: own?.capabilities ?? {} }, after: { capabilities } });
    return view(tx, t);
  });
}

const accountTier = (actor: Actor): Tier => ({ level: 'account', ownerId: actor.accountId, accountId: actor.accountId, organizationId: null });

async function organizationTier(db: Tx, actor: Actor, orgId: string): Promise<Tier> {
  const org = await organizationFor(db as Db, actor, orgId, 'admin');
  return { level: 'organization', ownerId: org.id, accountId: org.accountId, organizationId: org.id };
}

export const getAccountCapabilities = (db: Db, actor: Actor) => view(db, accountTier(actor));
export const patchAccountCapabilities = (db: Db, actor: Actor, input: z.infer<typeof TierCapabilitiesPatch>) => patch(db, actor, async () => accountTier(actor), input);

export async function getOrganizationCapabilities(db: Db, actor: Actor, orgId: string) {
  return view(db, await organizationTier(db, actor, orgId));
}
export const patchOrganizationCapabilities = (db: Db, actor: Actor, orgId: string, input: z.infer<typeof TierCapabilitiesPatch>) => patch(db, actor, (tx) => organizationTier(tx, actor, orgId), input);

/** Whether an account's (or an organization's) people may create workspace Slack apps. */
export async function slackWorkspaceAppsAllowed(db: Tx, scope: { accountId: string; organizationId: string | null }): Promise<boolean> {
  return resolveSwitch(await policyChain(db, { ...scope, teamId: null }), 'slackWorkspaceApps') === 'on';
}
