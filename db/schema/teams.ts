import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, real, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, updatedAt } from './columns';
import { users } from './users';

export const teams = pgTable(
  'teams',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id'),
    name: text('name').notNull(),
    generalInfo: text('general_info').notNull().default(''),
    adminApprovalRequired: boolean('admin_approval_required').notNull().default(false),
    brandingOnEvents: boolean('branding_on_events').notNull().default(true),
    brandingOnMessages: boolean('branding_on_messages').notNull().default(true),
    status: text('status', { enum: ['active', 'archived'] }).notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('teams_account_created').on(t.accountId, t.createdAt)],
);

export const teamRoles = ['member', 'admin', 'owner'] as const;

export const teamMemberships = pgTable(
  'team_memberships',
  {
    id: idColumn(),
    accountId: text('account_id').notNull(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: teamRoles }).notNull().default('member'),
    status: text('status', { enum: ['active', 'invited', 'archived'] }).notNull().default('active'),
    multiplier: real('multiplier'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('team_memberships_team').on(t.teamId), index('team_memberships_user').on(t.userId)],
);

export type TeamRow = typeof teams.$inferSelect;
export type TeamMembershipRow = typeof teamMemberships.$inferSelect;

export const teamJoinRequestStatuses = ['pending', 'approved', 'declined', 'withdrawn'] as const;

/**
 * A person asking to join a team of their organization (spec 1: `adminApprovalRequired`, "a team
 * admin must approve join requests"). One pending request per person and team; a decided one is
 * kept as the record of who decided and when.
 */
export const teamJoinRequests = pgTable(
  'team_join_requests',
  {
    id: idColumn(),
    accountId: text('account_id').notNull(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: teamJoinRequestStatuses }).notNull().default('pending'),
    message: text('message').notNull().default(''),
    /** The team admin who approved or declined; null while pending, when withdrawn, or when the team asks no approval. */
    decidedBy: text('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('team_join_requests_pending').on(t.teamId, t.userId).where(sql`${t.status} = 'pending'`),
    index('team_join_requests_team').on(t.teamId, t.createdAt),
  ],
);

export type TeamJoinRequestRow = typeof teamJoinRequests.$inferSelect;
