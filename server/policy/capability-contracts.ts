import { z } from 'zod';
import { SWITCHES, switchesPatch } from './contracts';

/*
 * Capability switches at the account and organization tiers (spec 1: the `capabilities` keys of
 * team policy, plus `slackWorkspaceApps`, which only makes sense above a team: whether people may
 * create workspace Slack apps for their assistants). Each is `on`, `off` or null (inherit), with
 * a boolean `<name>Locked` that pins it for the tiers below.
 */

export const TIER_SWITCHES = [...SWITCHES, 'slackWorkspaceApps'] as const;
export type TierSwitch = (typeof TIER_SWITCHES)[number];

export const TierCapabilitiesPatch = switchesPatch(TIER_SWITCHES);

export const TierCapabilitiesBody = z.object({ capabilities: TierCapabilitiesPatch }).strict();

const Value = z.enum(['on', 'off']);

export const TierCapabilitiesResponse = z.object({
  ok: z.literal(true),
  level: z.enum(['account', 'organization']),
  ownerId: z.string(),
  /** This tier's own settings (null inherits). */
  capabilities: z.record(z.string(), z.unknown()),
  /** Switches a tier above locked, with the value they pinned. */
  lockedAbove: z.record(z.string(), z.object({ value: Value, by: z.literal('account') })),
  /** What applies at this tier once the tiers above are taken into account (teams may still turn a switch off). */
  effective: z.object({
    capabilities: z.record(z.string(), Value),
    workspaceHandoffDomains: z.object({ allowlist: z.array(z.string()).nullable(), blocklist: z.array(z.string()) }),
  }),
});
