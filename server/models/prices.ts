import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ModelTier } from './tiers';
import type { StewardUsage } from './usage';

/** Credits per million tokens of each kind. Cache reads and writes cost what input costs unless priced. */
const TierPrice = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheCreation: z.number().nonnegative().optional(),
});
const PriceTable = z.strictObject({
  low: TierPrice.optional(),
  medium: TierPrice.optional(),
  high: TierPrice.optional(),
  ultra: TierPrice.optional(),
});
export type PriceTable = z.infer<typeof PriceTable>;

/** A price table that cannot be read: a configuration mistake the operator must fix, named exactly. */
export class ModelPricesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelPricesError';
  }
}

const parsedTables = new Map<string, PriceTable>();

/**
 * STEWARD_MODEL_PRICES: the JSON object itself, or the path of a file holding it (read once per
 * process: restart to change prices). Unset: no tier has a price and nothing is billable.
 */
export function modelPrices(env: Record<string, string | undefined> = process.env): PriceTable {
  const value = env.STEWARD_MODEL_PRICES?.trim();
  if (!value) return {};
  const known = parsedTables.get(value);
  if (known) return known;
  const inline = value.startsWith('{');
  let text = value;
  if (!inline) {
    try {
      text = readFileSync(path.resolve(value), 'utf8');
    } catch (e) {
      throw new ModelPricesError(`STEWARD_MODEL_PRICES: cannot read ${value}: ${(e as Error).message}`);
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ModelPricesError(`STEWARD_MODEL_PRICES${inline ? '' : ` (${value})`}: not JSON: ${(e as Error).message}`);
  }
  const parsed = PriceTable.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(table)'}: ${i.message}`).join('; ');
    throw new ModelPricesError(`STEWARD_MODEL_PRICES: ${problems}`);
  }
  parsedTables.set(value, parsed.data);
  return parsed.data;
}

/**
 * What one model call costs. Billable only when the deployment's endpoint served it (an account's
 * own endpoint is the account's bill) and the serving tier has a price; otherwise 0 credits.
 */
export function creditsFor(
  servedBy: ModelTier,
  usage: StewardUsage,
  opts: { billable: boolean },
  prices: PriceTable = modelPrices(),
): { chargedCredits: number; isBillable: boolean } {
  const price = prices[servedBy];
  if (!opts.billable || !price) return { chargedCredits: 0, isBillable: false };
  const perMillion =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    usage.cacheReadTokens * (price.cacheRead ?? price.input) +
    usage.cacheCreationTokens * (price.cacheCreation ?? price.input);
  // Six decimals: exact enough for a millionth of a credit, free of binary-fraction noise.
  return { chargedCredits: Math.round(perMillion) / 1e6, isBillable: true };
}
