import type { Db } from '@/db/client';
import { assertOperates, type AccountOperator } from '@/server/accounts/operator';
import { accountTierEndpoints, environmentModels } from '@/server/models/configuration';
import { modelTiers, type ModelTier } from '@/server/models/tiers';

/** How the console names each tier (spec 6: `medium` is labelled "Standard"). */
export const TIER_LABELS: Record<ModelTier, string> = { low: 'Low', medium: 'Standard', high: 'High', ultra: 'Ultra' };

/**
 * The model serving each tier for the account and where it comes from: the account's own setting
 * (the deployment's endpoint, or its own base URL with its sealed key) or the deployment's
 * environment; a tier with neither is served by the nearest configured one. Never a key.
 */
export async function consoleModels(db: Db, accountId: string, by: AccountOperator) {
  assertOperates(by, accountId);
  const env = environmentModels();
  const endpoints = await accountTierEndpoints(db, accountId, env);
  return {
    ok: true as const,
    deploymentBaseUrl: env.baseUrl,
    tiers: modelTiers.map((tier) => {
      const e = endpoints[tier];
      return {
        tier,
        label: TIER_LABELS[tier],
        model: e?.model ?? null,
        source: e ? (e.source === 'account' ? ('account' as const) : ('deployment' as const)) : ('none' as const),
        baseUrl: e?.own ? e.baseUrl : null,
        ownKey: Boolean(e?.own && e.apiKeySealed),
        deploymentModel: env.models[tier] ?? null,
      };
    }),
  };
}
