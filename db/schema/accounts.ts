import { boolean, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export type AccountLimits = Partial<{
  runMaxModelCalls: number;
  runMaxToolCalls: number;
  taskTreeMax: number;
  userMaxConcurrentRuns: number;
  browsersPerAccount: number;
}>;

/** A customer application. Console-only settings live here. */
export const accounts = pgTable('accounts', {
  id: idColumn(),
  name: text('name').notNull(),
  killSwitch: boolean('kill_switch').notNull().default(false),
  rateLimitReads: integer('rate_limit_reads'),
  rateLimitWrites: integer('rate_limit_writes'),
  /** Where the account's hosted app (and SAML, SCIM) is served; selects the account by Host. */
  hostedDomain: text('hosted_domain').unique(),
  /**
   * Per-account overrides of the deployment's limits (spec 5, Limits: STEWARD_RUN_MAX_MODEL_CALLS,
   * STEWARD_RUN_MAX_TOOL_CALLS, STEWARD_TASK_TREE_MAX, STEWARD_USER_MAX_CONCURRENT_RUNS,
   * STEWARD_BROWSERS_PER_ACCOUNT), set with the admin CLI; a missing key follows the environment.
   */
  limits: jsonb('limits').$type<AccountLimits>().notNull().default({}),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Public keys registered for certificate-token (RS256 JWT) authentication; the id is the `kid`. */
export const accountCertificates = pgTable('account_certificates', {
  id: idColumn(),
  accountId: text('account_id')
    .notNull()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  publicKeyPem: text('public_key_pem').notNull(),
  revokedAt: ts('revoked_at'),
  createdAt: createdAt(),
});

export type AccountRow = typeof accounts.$inferSelect;
