import { bigint, index, integer, jsonb, pgTable, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts } from './columns';

export const apiKeys = pgTable(
  'api_keys',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** Set for an organization-scoped key. */
    organizationId: text('organization_id'),
    /** The user a user-level key acts as. */
    userId: text('user_id'),
    label: text('label').notNull(),
    prefix: text('prefix').notNull(),
    /** SHA-256 of the full key, hex. The key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull().default([]),
    status: text('status', { enum: ['active', 'revoked'] }).notNull().default('active'),
    lastUsedAt: ts('last_used_at'),
    expiresAt: ts('expires_at'),
    revokedAt: ts('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash').on(t.keyHash),
    index('api_keys_account_created').on(t.accountId, t.createdAt),
    index('api_keys_user').on(t.userId),
  ],
);

/**
 * Counters of rate-limiter-flexible's Postgres store, created by our migration
 * (the library is told the table exists) so that several app instances share them.
 */
export const rateLimits = pgTable('rate_limits', {
  key: varchar('key', { length: 255 }).primaryKey(),
  points: integer('points').notNull().default(0),
  expire: bigint('expire', { mode: 'number' }),
});

export type ApiKeyRow = typeof apiKeys.$inferSelect;
