import { boolean, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/** A customer application. Console-only settings live here. */
export const accounts = pgTable('accounts', {
  id: idColumn(),
  name: text('name').notNull(),
  killSwitch: boolean('kill_switch').notNull().default(false),
  rateLimitReads: integer('rate_limit_reads'),
  rateLimitWrites: integer('rate_limit_writes'),
  /** Where the account's hosted app (and SAML, SCIM) is served; selects the account by Host. */
  hostedDomain: text('hosted_domain').unique(),
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
