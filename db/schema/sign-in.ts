import { index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, ts } from './columns';

/** SP-initiated SAML requests awaiting their response; a response must answer one within 10 minutes (InResponseTo). */
export const samlRequests = pgTable('saml_requests', {
  id: text('id').primaryKey(),
  accountId: text('account_id')
    .notNull()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  organizationId: text('organization_id').notNull(),
  /** Where the user goes after signing in (a path on the hosted domain). */
  returnTo: text('return_to').notNull().default('/'),
  createdAt: createdAt(),
});

/** Assertions already accepted, kept until they expire: each is accepted at most once. */
export const samlAssertionsSeen = pgTable(
  'saml_assertions_seen',
  {
    organizationId: text('organization_id').notNull(),
    assertionId: text('assertion_id').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.assertionId] }), index('saml_assertions_seen_expiry').on(t.expiresAt)],
);

/** Email sign-in links of the hosted app (next-auth verification tokens), stored hashed by next-auth. */
export const portalVerificationTokens = pgTable(
  'portal_verification_tokens',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    identifier: text('identifier').notNull(),
    token: text('token').notNull(),
    expires: ts('expires').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.identifier, t.token] })],
);
