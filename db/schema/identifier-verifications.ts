import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, ts } from './columns';
import { identifiers, users } from './users';

/**
 * The one-time code that proves a person holds an identifier (spec 5, "Identifier verification"):
 * at most one live code per identifier, a new request replacing it. Only an HMAC of the code is
 * kept, keyed by a deployment secret wrapped with the master key, so a database dump does not
 * reveal a code (six digits would fall to a plain hash at once). Spent after 5 wrong tries.
 */
export const identifierVerifications = pgTable(
  'identifier_verifications',
  {
    identifierId: text('identifier_id')
      .primaryKey()
      .references(() => identifiers.id, { onDelete: 'cascade' }),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Hex HMAC-SHA256 of `<identifierId>:<code>` under the `identifier-codes` secret. */
    codeHash: text('code_hash').notNull(),
    /** Wrong codes tried against this one; the fifth spends it. */
    failedAttempts: integer('failed_attempts').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('identifier_verifications_expiry').on(t.expiresAt)],
);

export type IdentifierVerificationRow = typeof identifierVerifications.$inferSelect;
