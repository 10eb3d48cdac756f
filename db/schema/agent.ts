import { check, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { accounts } from './accounts';
import { createdAt, updatedAt } from './columns';

/** The four model tiers, cheapest first: code chooses a tier, configuration chooses the model. */
export const modelTiers = ['low', 'medium', 'high', 'ultra'] as const;

/**
 * The console's per-account model for one tier (admin CLI `set-model`). It wins over the
 * STEWARD_MODEL_* environment for that account and tier. Without `base_url` the model is served
 * by the deployment's endpoint; with it, by the account's own endpoint, reached with the
 * account's own key (sealed, never in clear) and never with the deployment's key.
 */
export const modelSettings = pgTable(
  'model_settings',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    tier: text('tier', { enum: modelTiers }).notNull(),
    model: text('model').notNull(),
    baseUrl: text('base_url'),
    /** The account's API key for base_url, sealed as a JWE (server/secrets/sealed.ts). */
    apiKeySealed: text('api_key_sealed'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.tier] }),
    check('model_settings_key_needs_base_url', sql`${t.apiKeySealed} IS NULL OR ${t.baseUrl} IS NOT NULL`),
  ],
);

export type ModelSettingRow = typeof modelSettings.$inferSelect;
