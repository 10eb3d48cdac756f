import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { mailboxProviders } from './channel-names';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

/*
 * The user's own mailbox, connected by OAuth (server/mailboxes/): Gmail through the Gmail API,
 * Microsoft 365 through Microsoft Graph. Steward reads new mail from it, and sends the mail a user
 * approved as theirs (email_as_user) from it.
 */


/**
 * One connected mailbox per user (a new connection replaces the old). The provider's tokens are
 * sealed (server/secrets/sealed.ts) and never stored in clear; Graph's clientState, which
 * authenticates its change notifications, is kept only as a SHA-256 hash.
 */
export const mailboxes = pgTable(
  'mailboxes',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: mailboxProviders }).notNull(),
    /** The mailbox's own address, as the provider reports it. */
    address: text('address').notNull(),
    /** The token response (access and refresh tokens) sealed as a JWE. */
    tokens: text('tokens').notNull(),
    /** When the sealed access token stops working: it is refreshed a little before. */
    tokenExpiresAt: ts('token_expires_at'),
    scopes: text('scopes').notNull().default(''),
    /** The provider no longer honours the tokens (revoked, expired refresh token): the user must connect again. */
    authError: boolean('auth_error').notNull().default(false),
    authErrorReason: text('auth_error_reason'),
    /** Where the next poll starts: Gmail's historyId, or Graph's deltaLink. */
    cursor: text('cursor'),
    /** Graph change notifications: the subscription, its expiry and the SHA-256 of its clientState. */
    subscriptionId: text('subscription_id'),
    subscriptionExpiresAt: ts('subscription_expires_at'),
    clientStateHash: text('client_state_hash'),
    /** A poll in progress holds this lease, so two pollers do not walk the same cursor. */
    syncLeaseUntil: ts('sync_lease_until'),
    lastSyncedAt: ts('last_synced_at'),
    lastSyncError: text('last_sync_error'),
    connectedAt: ts('connected_at').notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('mailboxes_user').on(t.userId),
    uniqueIndex('mailboxes_subscription').on(t.subscriptionId).where(sql`${t.subscriptionId} IS NOT NULL`),
    index('mailboxes_sync').on(t.lastSyncedAt),
  ],
);

export type MailboxRow = typeof mailboxes.$inferSelect;

export const mailboxMessageStatuses = ['attached', 'unverified', 'quarantined', 'workflow', 'skipped'] as const;

/**
 * Every message Steward took from a connected mailbox, once (the provider's id is unique per
 * mailbox): what became of it. Only what routing needs is kept; the text stays in the mailbox.
 */
export const mailboxMessages = pgTable(
  'mailbox_messages',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    mailboxId: text('mailbox_id')
      .notNull()
      .references(() => mailboxes.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    /** Gmail's message id, or Graph's immutable id. */
    providerMessageId: text('provider_message_id').notNull(),
    /** The Message-ID header, with its angle brackets. */
    internetMessageId: text('internet_message_id'),
    fromAddress: text('from_address'),
    senderVerified: boolean('sender_verified').notNull().default(false),
    subject: text('subject'),
    status: text('status', { enum: mailboxMessageStatuses }).notNull(),
    reason: text('reason'),
    taskId: text('task_id'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('mailbox_messages_provider_id').on(t.mailboxId, t.providerMessageId), index('mailbox_messages_account').on(t.accountId, t.createdAt)],
);

export type MailboxMessageRow = typeof mailboxMessages.$inferSelect;

/**
 * A dispatch sent from a connected mailbox: the provider's own id of the sent message (the
 * dispatch keeps its Message-ID, which replies name).
 */
export const mailboxSends = pgTable(
  'mailbox_sends',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    dispatchId: text('dispatch_id').notNull(),
    provider: text('provider', { enum: mailboxProviders }).notNull(),
    address: text('address').notNull(),
    providerMessageId: text('provider_message_id'),
    internetMessageId: text('internet_message_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('mailbox_sends_dispatch').on(t.dispatchId)],
);

export type MailboxSendRow = typeof mailboxSends.$inferSelect;
