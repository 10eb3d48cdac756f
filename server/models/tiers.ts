import { modelTiers } from '@/db/schema';

export { modelTiers };
export type ModelTier = (typeof modelTiers)[number];

export const isModelTier = (value: unknown): value is ModelTier => modelTiers.includes(value as ModelTier);

/**
 * The tier a run uses (spec document 2, Model tiers): the task's or chat's own, else the
 * organization's default, else the account's default, else `medium`.
 */
export function resolveTier(input: {
  taskTier?: ModelTier | null;
  organizationTier?: ModelTier | null;
  accountTier?: ModelTier | null;
}): ModelTier {
  return input.taskTier ?? input.organizationTier ?? input.accountTier ?? 'medium';
}

/**
 * The tier whose model serves `tier`: itself when it has one, else the nearest lower tier with
 * one, else the nearest higher. Lower first, so a missing tier never silently costs more than
 * what was asked for when something cheaper is configured.
 */
export function nearestConfigured<T>(configured: Partial<Record<ModelTier, T>>, tier: ModelTier): { tier: ModelTier; value: T } | null {
  const at = modelTiers.indexOf(tier);
  const order = [...modelTiers.slice(0, at + 1).reverse(), ...modelTiers.slice(at + 1)];
  for (const candidate of order) {
    const value = configured[candidate];
    if (value !== undefined) return { tier: candidate, value };
  }
  return null;
}
