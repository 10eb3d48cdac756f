import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { modelSettings } from '@/db/schema';
import { parseBaseUrl } from './base-url';
import { modelTiers, type ModelTier } from './tiers';

export const TIER_VARIABLE: Record<ModelTier, string> = {
  low: 'STEWARD_MODEL_LOW',
  medium: 'STEWARD_MODEL_MEDIUM',
  high: 'STEWARD_MODEL_HIGH',
  ultra: 'STEWARD_MODEL_ULTRA',
};

const setting = (value: string | undefined) => (value?.trim() ? value.trim() : null);

/** The deployment's endpoint and tier models, read from the environment at each call. */
export function environmentModels(env: Record<string, string | undefined> = process.env) {
  const rawBaseUrl = setting(env.STEWARD_MODEL_BASE_URL);
  const parsed = rawBaseUrl ? parseBaseUrl(rawBaseUrl) : null;
  const models: Partial<Record<ModelTier, string>> = {};
  for (const tier of modelTiers) {
    const model = setting(env[TIER_VARIABLE[tier]]);
    if (model) models[tier] = model;
  }
  return {
    baseUrl: parsed && 'url' in parsed ? parsed.url : null,
    baseUrlProblem: parsed && 'problem' in parsed ? `STEWARD_MODEL_BASE_URL ${parsed.problem}` : null,
    apiKey: setting(env.STEWARD_MODEL_API_KEY),
    models,
  };
}

/**
 * Who serves one tier for an account. `own`: the account's endpoint (its base URL, its sealed
 * key); otherwise the deployment's (STEWARD_MODEL_BASE_URL and STEWARD_MODEL_API_KEY), whose
 * key is never sent anywhere else.
 */
export type TierEndpoint =
  | { source: 'account'; own: true; model: string; baseUrl: string; apiKeySealed: string | null }
  | { source: 'account' | 'environment'; own: false; model: string; baseUrl: string | null; apiKeySealed: null };

/** Every tier that has a model for this account: the account's setting wins over the environment, tier by tier. */
export async function accountTierEndpoints(db: Db, accountId: string, env = environmentModels()) {
  const rows = await db.select().from(modelSettings).where(eq(modelSettings.accountId, accountId));
  const endpoints: Partial<Record<ModelTier, TierEndpoint>> = {};
  for (const tier of modelTiers) {
    const row = rows.find((r) => r.tier === tier);
    if (row?.baseUrl) endpoints[tier] = { source: 'account', own: true, model: row.model, baseUrl: row.baseUrl, apiKeySealed: row.apiKeySealed };
    else if (row) endpoints[tier] = { source: 'account', own: false, model: row.model, baseUrl: env.baseUrl, apiKeySealed: null };
    else if (env.models[tier]) endpoints[tier] = { source: 'environment', own: false, model: env.models[tier], baseUrl: env.baseUrl, apiKeySealed: null };
  }
  return endpoints;
}
