import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts } from './columns';
import { organizations } from './organizations';

export const invitationStatuses = ['pending', 'accepted', 'declined'] as const;

/**
 * An organization's invitation to a person it cannot vouch for (an address outside its verified
 * domains). Addressed to an email, not a user: only whoever holds that address as a verified
 * identifier, signed in to the hosted app, can accept it.
 */
export const organizationInvitations = pgTable(
  'organization_invitations',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Lower-cased. */
    email: text('email').notNull(),
    status: text('status', { enum: invitationStatuses }).notNull().default('pending'),
    invitedBy: text('invited_by'),
    respondedAt: ts('responded_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('organization_invitations_org_email').on(t.organizationId, t.email), index('organization_invitations_account_email').on(t.accountId, t.email)],
);

export type OrganizationInvitationRow = typeof organizationInvitations.$inferSelect;
