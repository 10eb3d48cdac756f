import type { OpenAICompatibleProviderSettings } from '@ai-sdk/openai-compatible';
import type { LanguageModelUsage } from 'ai';

/**
 * Token counts as Steward reports and bills them. The four are disjoint: `inputTokens` are the
 * prompt tokens read neither from nor into the provider's cache, so each count has one price
 * and their sum is every token the call touched.
 */
export type StewardUsage = { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheCreationTokens: number };

export const noUsage = (): StewardUsage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 });

export const addUsage = (a: StewardUsage, b: StewardUsage): StewardUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
  cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
});

const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/** The ai SDK's usage of one step (or a run's total) in Steward's terms; a missing count is 0. */
export function stewardUsage(usage: LanguageModelUsage | undefined): StewardUsage {
  if (!usage) return noUsage();
  const cacheReadTokens = count(usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens);
  const cacheCreationTokens = count(usage.inputTokenDetails?.cacheWriteTokens);
  const uncached = usage.inputTokenDetails?.noCacheTokens;
  return {
    inputTokens: uncached !== undefined ? count(uncached) : count((usage.inputTokens ?? 0) - cacheReadTokens - cacheCreationTokens),
    outputTokens: count(usage.outputTokens),
    cacheReadTokens,
    cacheCreationTokens,
  };
}

type ConvertUsage = NonNullable<OpenAICompatibleProviderSettings['convertUsage']>;
type WireUsage = Parameters<ConvertUsage>[0];

const field = (object: unknown, key: string): unknown =>
  object && typeof object === 'object' ? (object as Record<string, unknown>)[key] : undefined;

/**
 * Reads the `usage` of a Chat Completions response. The package's own reading knows cache reads
 * (`prompt_tokens_details.cached_tokens`) only; servers and proxies that report cache writes or
 * hits under their own names (OpenRouter's `cache_write_tokens`, LiteLLM's
 * `cache_creation_input_tokens`, DeepSeek's `prompt_cache_hit_tokens`) are read here too.
 * `prompt_tokens` counts every input token, cached or not.
 */
export const readWireUsage: ConvertUsage = (usage: WireUsage) => {
  if (usage == null) {
    return {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      raw: undefined,
    };
  }
  const details = usage.prompt_tokens_details;
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  const cacheRead = count(details?.cached_tokens ?? field(usage, 'prompt_cache_hit_tokens') ?? field(usage, 'cache_read_input_tokens'));
  const cacheWrite = count(field(details, 'cache_write_tokens') ?? field(details, 'cache_creation_tokens') ?? field(usage, 'cache_creation_input_tokens'));
  const reasoning = count(usage.completion_tokens_details?.reasoning_tokens);
  return {
    inputTokens: { total: prompt, noCache: Math.max(0, prompt - cacheRead - cacheWrite), cacheRead, cacheWrite },
    outputTokens: { total: completion, text: Math.max(0, completion - reasoning), reasoning },
    // The parsed wire object is JSON by construction.
    raw: usage as ReturnType<ConvertUsage>['raw'],
  };
};
