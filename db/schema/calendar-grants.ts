import { boolean, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

/*
 * A user's OAuth grant to their Google or Microsoft 365 calendars (server/calendars/oauth-*.ts):
 * the same client as their mailbox, with calendar scopes. It holds only what OAuth needs (the
 * account's address, the sealed tokens, the scopes, whether the provider still honours them);
 * the calendar connection that reads and writes through it points at it.
 */

export const calendarGrantProviders = ['google', 'microsoft'] as const;
export type CalendarGrantProvider = (typeof calendarGrantProviders)[number];

export const calendarGrants = pgTable(
  'calendar_grants',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: calendarGrantProviders }).notNull(),
    /** The Google or Microsoft account's address, as the provider reports it. */
    address: text('address').notNull(),
    /** The token response (access and refresh tokens) sealed as a JWE (server/secrets/sealed.ts). */
    tokens: text('tokens').notNull(),
    tokenExpiresAt: ts('token_expires_at'),
    scopes: text('scopes').notNull().default(''),
    /** The provider no longer honours the tokens (revoked, expired refresh token): the user must connect again. */
    authError: boolean('auth_error').notNull().default(false),
    authErrorReason: text('auth_error_reason'),
    connectedAt: ts('connected_at').notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('calendar_grants_user_account').on(t.userId, t.provider, t.address), index('calendar_grants_account').on(t.accountId)],
);

export type CalendarGrantRow = typeof calendarGrants.$inferSelect;
