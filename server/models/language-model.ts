import { createOpenAICompatible, type OpenAICompatibleProvider } from '@ai-sdk/openai-compatible';
import type { Db } from '@/db/client';
import { totalSignal, TOTAL_MS } from '@/server/http/outbound-timeouts';
import { openJson } from '@/server/secrets/sealed';
import { accountTierEndpoints, environmentModels, TIER_VARIABLE, type TierEndpoint } from './configuration';
import { ModelNotConfiguredError } from './errors';
import { apiKeyPurpose } from './settings';
import { modelTiers, nearestConfigured, type ModelTier } from './tiers';
import { readWireUsage } from './usage';

export type ChatModel = ReturnType<OpenAICompatibleProvider['chatModel']>;

/** A model call ends within TOTAL_MS.model, its streamed answer included (server/http/outbound-timeouts.ts). */
const timedFetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, { ...init, signal: totalSignal(TOTAL_MS.model, init?.signal) })) as typeof fetch;

export type ResolvedModel = {
  /** The ai SDK model for generateText / streamText; its requests carry `model: modelId`. */
  model: ChatModel;
  modelId: string;
  /** The tier the run asked for. */
  tier: ModelTier;
  /** The tier whose model serves it (itself, or the nearest configured one); prices follow it. */
  servedBy: ModelTier;
  baseUrl: string;
  /** False when the account's own endpoint serves the tier: its usage is not the deployment's to bill. */
  billable: boolean;
};

const setModelHint = (accountId: string, tier: ModelTier) =>
  `npm run --silent admin -- set-model --account ${accountId} --tier ${tier} --model MODEL --base-url URL`;

/**
 * The model that serves `tier` for an account: the account's setting for the tier, else the
 * environment's, falling back to the nearest lower tier that has a model, then the nearest higher.
 * Throws ModelNotConfiguredError, saying what to set, when nothing can serve it.
 */
export async function languageModel(db: Db, accountId: string, tier: ModelTier): Promise<ResolvedModel> {
  const env = environmentModels();
  const picked = nearestConfigured(await accountTierEndpoints(db, accountId, env), tier);
  if (!picked) {
    throw new ModelNotConfiguredError(
      tier,
      `No model is configured for the ${tier} tier or any other: set STEWARD_MODEL_BASE_URL and ${TIER_VARIABLE[tier]} ` +
        `(or any of ${modelTiers.map((t) => TIER_VARIABLE[t]).join(', ')}), or run \`${setModelHint(accountId, tier)}\``,
    );
  }
  const endpoint: TierEndpoint = picked.value;
  if (!endpoint.baseUrl) {
    throw new ModelNotConfiguredError(
      tier,
      `The ${tier} tier is served by model ${endpoint.model}, but no endpoint is set: ` +
        `${env.baseUrlProblem ?? 'set STEWARD_MODEL_BASE_URL'} (for example http://localhost:11434/v1), ` +
        `or give the account its own with \`${setModelHint(accountId, picked.tier)}\``,
    );
  }
  const apiKey = endpoint.own ? await accountApiKey(db, accountId, picked.tier, endpoint.apiKeySealed) : (env.apiKey ?? undefined);
  return {
    model: chatModel(endpoint.baseUrl, apiKey, endpoint.model),
    modelId: endpoint.model,
    tier,
    servedBy: picked.tier,
    baseUrl: endpoint.baseUrl,
    billable: !endpoint.own,
  };
}

/*
 * The ai SDK's model objects, kept per endpoint, key and model: making one builds the provider's
 * response schemas (about 1 ms of CPU, profiled on the SMS bench), which every model call of every
 * run and turn paid again. They hold no state between calls. Bounded: the oldest goes first.
 */
const MODELS_KEPT = 256;
const models = new Map<string, ChatModel>();

function chatModel(baseURL: string, apiKey: string | undefined, model: string): ChatModel {
  const key = JSON.stringify([baseURL, apiKey ?? null, model]);
  const kept = models.get(key);
  if (kept) return kept;
  const provider = createOpenAICompatible({
    name: 'steward',
    baseURL,
    apiKey,
    // Without it a streamed answer carries no usage, and the run would be recorded as free.
    includeUsage: true,
    convertUsage: readWireUsage,
    fetch: timedFetch,
  });
  const made = provider.chatModel(model);
  if (models.size >= MODELS_KEPT) models.delete(models.keys().next().value!);
  models.set(key, made);
  return made;
}

async function accountApiKey(db: Db, accountId: string, tier: ModelTier, sealed: string | null): Promise<string | undefined> {
  if (!sealed) return undefined;
  try {
    return await openJson<string>(db, sealed, apiKeyPurpose(accountId, tier));
  } catch {
    // The sealing key changed or the row was altered: say what fixes it instead of failing the run obscurely.
    throw new ModelNotConfiguredError(
      tier,
      `The API key stored for the ${tier} tier of this account cannot be opened (was STEWARD_ENCRYPTION_KEY changed?): ` +
        `set it again with \`${setModelHint(accountId, tier)} --api-key KEY\``,
    );
  }
}
