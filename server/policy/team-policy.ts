import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { policySettings, type PolicyRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest, forbidden } from '@/server/http/errors';
import { teamFor } from '@/server/teams/access';
import { ACTION_TYPES, SWITCHES, type PolicyPatchBody } from './contracts';
import { lockedAt, policyChain, resolveCapabilities } from './resolve';
import { recordAudit } from '@/server/audit/record';

type Level = 'account' | 'organization' | 'team';

/** Writes one tier's policy (the organization and account tiers have no public endpoint yet; tests and the console use this). */
export async function writePolicy(tx: Tx, level: Level, ownerId: string, accountId: string, set: Partial<Pick<PolicyRow, 'capabilities' | 'matrix' | 'preset'>>) {
  await tx
    .insert(policySettings)
    .values({ level, ownerId, accountId, capabilities: set.capabilities ?? {}, matrix: set.matrix ?? null, preset: set.preset ?? null })
    .onConflictDoUpdate({
      target: [policySettings.level, policySettings.ownerId],
      set: { ...changedFields({ capabilities: set.capabilities, matrix: set.matrix, preset: set.preset }), updatedAt: sql`now()` },
    });
}

async function teamPolicyView(tx: Tx, accountId: string, organizationId: string | null, teamId: string) {
  const chain = await policyChain(tx, { accountId, organizationId, teamId });
  const own = chain.find((r) => r.level === 'team');
  const above = chain.filter((r) => r.level !== 'team');
  const capabilities: Record<string, unknown> = {};
  for (const s of SWITCHES) {
    capabilities[s] = (own?.capabilities[s] as string | undefined) ?? null;
    capabilities[`${s}Locked`] = own?.capabilities[`${s}Locked`] === true;
  }
  capabilities.workspaceHandoffDomains = own?.capabilities.workspaceHandoffDomains ?? { allowlist: [], blocklist: [] };
  const organizationLocked: Record<string, { mode: string | null; timeBoxedWindowMin: number | null }> = {};
  for (const r of above) for (const [a, cell] of Object.entries(r.matrix ?? {})) if (cell.locked && !organizationLocked[a]) organizationLocked[a] = { mode: cell.mode, timeBoxedWindowMin: cell.timeBoxedWindowMin };
  const matrix = own?.matrix
    ? Object.fromEntries(Object.entries(own.matrix).map(([a, c]) => [a, { mode: c.mode, timeBoxedWindowMin: c.timeBoxedWindowMin }]))
    : null;
  const effective = resolveCapabilities(chain);
  return {
    ok: true as const,
    settings: { skills: {}, workflows: {}, assistants: {}, store: {}, users: {}, capabilities, approvalSettings: { matrix, organizationLocked } },
    preset: own?.preset ?? null,
    effective: { capabilities: effective.capabilities, workspaceHandoffDomains: effective.workspaceHandoffDomains },
  };
}

export async function getTeamPolicy(db: Db, actor: Actor, teamId: string) {
  const { team } = await teamFor(db, actor, teamId, 'admin');
  return teamPolicyView(db, team.accountId, team.organizationId, team.id);
}

/**
 * Team admins and account keys change the team's switches and approval overrides, except
 * where a tier above locked them (403). A lock needs a value. Editing a switch by hand clears the preset label.
 */
export async function patchTeamPolicy(db: Db, actor: Actor, teamId: string, input: z.infer<typeof PolicyPatchBody>) {
  return db.transaction(async (tx) => {
    const { team } = await teamFor(tx, actor, teamId, 'admin');
    const chain = await policyChain(tx, { accountId: team.accountId, organizationId: team.organizationId, teamId: team.id });
    const own = chain.find((r) => r.level === 'team');
    const above = chain.filter((r) => r.level !== 'team');
    let capabilities = own?.capabilities ?? {};
    let preset = own?.preset ?? null;
    if (input.capabilities) {
      const patch = input.capabilities as Record<string, unknown>;
      for (const s of SWITCHES) {
        const touched = patch[s] !== undefined || patch[`${s}Locked`] !== undefined;
        if (!touched) continue;
        const lock = lockedAt(above, s);
        if (lock) throw forbidden(`capabilities.${s}: locked by the ${lock.level}`);
        const value = patch[s] !== undefined ? patch[s] : capabilities[s];
        if (patch[`${s}Locked`] === true && (value === null || value === undefined)) throw badRequest(`capabilities.${s}Locked: a lock needs a value for ${s}`);
        preset = null;
      }
      capabilities = { ...capabilities, ...patch };
      for (const s of SWITCHES) if (capabilities[s] === null && capabilities[`${s}Locked`] === true) capabilities[`${s}Locked`] = false;
    }
    let matrix = own?.matrix ?? null;
    if (input.approvalSettings) {
      const incoming = input.approvalSettings.matrix as Record<string, { mode: string | null; timeBoxedWindowMin: number | null } | null | undefined> | null;
      if (incoming === null) matrix = null;
      else {
        matrix = { ...(matrix ?? {}) };
        for (const a of ACTION_TYPES) {
          if (incoming[a] === undefined) continue;
          if (above.some((r) => r.matrix?.[a]?.locked)) throw forbidden(`approvalSettings.matrix.${a}: locked by the organization`);
          const cell = incoming[a];
          if (cell?.mode === 'time-boxed' && !cell.timeBoxedWindowMin) throw badRequest(`approvalSettings.matrix.${a}.timeBoxedWindowMin: required with mode time-boxed`);
          if (cell === null || cell.mode === null) delete matrix[a];
          else matrix[a] = { mode: cell.mode, timeBoxedWindowMin: cell.timeBoxedWindowMin };
        }
      }
    }
    await writePolicy(tx, 'team', team.id, team.accountId, { capabilities, matrix, preset });
    await recordAudit(tx, actor, 'team_policy.changed', { type: 'team', id: team.id }, { organizationId: team.organizationId, before: { capabilities: own?.capabilities ?? {}, matrix: own?.matrix ?? null, preset: own?.preset ?? null }, after: { capabilities, matrix, preset } });
    return teamPolicyView(tx, team.accountId, team.organizationId, team.id);
  });
}

/** The restricted preset: MCP servers (custom ones included), the workspace shell, browser automation and handoff off and locked. */
export async function applySecurityPreset(db: Db, actor: Actor, teamId: string) {
  return db.transaction(async (tx) => {
    const { team } = await teamFor(tx, actor, teamId, 'admin');
    const chain = await policyChain(tx, { accountId: team.accountId, organizationId: team.organizationId, teamId: team.id });
    const own = chain.find((r) => r.level === 'team');
    const capabilities = { ...(own?.capabilities ?? {}) };
    for (const s of SWITCHES) {
      capabilities[s] = 'off';
      capabilities[`${s}Locked`] = true;
    }
    await writePolicy(tx, 'team', team.id, team.accountId, { capabilities, preset: 'restricted' });
    await recordAudit(tx, actor, 'team_policy.changed', { type: 'team', id: team.id }, { organizationId: team.organizationId, before: { capabilities: own?.capabilities ?? {}, preset: own?.preset ?? null }, after: { capabilities, preset: 'restricted' } });
    return teamPolicyView(tx, team.accountId, team.organizationId, team.id);
  });
}
