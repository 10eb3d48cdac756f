import { z } from 'zod';
import { ModelPricesError, modelPrices, type PriceTable } from '@/server/models/prices';
import type { ModelTier } from '@/server/models/tiers';

/*
 * What the realtime speech model's tokens cost, in credits per million (the unit of
 * STEWARD_MODEL_PRICES): STEWARD_REALTIME_PRICE, a JSON object `{input, output, cacheRead?}`,
 * since a realtime model's audio tokens cost several times a text model's. Unset: the conversation
 * is priced as its chat's tier is (STEWARD_MODEL_PRICES), so a deployment that bills its models
 * never gives voice away; with neither, nothing is billable, as for text.
 */

const RealtimePrice = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
});

/** The price table to price a realtime response with, under `tier` (the chat's): creditsFor reads it. */
export function realtimePriceTable(tier: ModelTier, env: Record<string, string | undefined> = process.env): PriceTable {
  const value = env.STEWARD_REALTIME_PRICE?.trim();
  if (!value) return modelPrices(env);
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (e) {
    throw new ModelPricesError(`STEWARD_REALTIME_PRICE: not JSON: ${(e as Error).message}`);
  }
  const parsed = RealtimePrice.safeParse(json);
  if (!parsed.success) throw new ModelPricesError(`STEWARD_REALTIME_PRICE: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(price)'}: ${i.message}`).join('; ')}`);
  return { [tier]: parsed.data };
}
