import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { assistants } from './assistants';
import { mailboxProviders, oauthChatApps } from './channel-names';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

/** What an OAuth flow connects: a chat app, GitHub (the workspace), a user's mailbox. */
const oauthProviders = [...oauthChatApps, 'github', ...mailboxProviders] as const;

export const phoneLineRequests = pgTable(
  'phone_line_requests',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    assistantId: text('assistant_id').notNull(),
    requestedChannels: jsonb('requested_channels').$type<{ imessage: boolean; sms: boolean; whatsapp: boolean; voice: boolean }>().notNull(),
    notes: text('notes').notNull().default(''),
    status: text('status', { enum: ['pending', 'fulfilled', 'dismissed'] }).notNull().default('pending'),
    dismissalReason: text('dismissal_reason'),
    /** Twilio purchases tried for it (STEWARD_TWILIO_PROVISION=1) and when the next one is due; null when none is (server/channels/phone-line-purchase.ts). */
    purchaseAttempts: integer('purchase_attempts').notNull().default(0),
    nextPurchaseAt: ts('next_purchase_at'),
    lastPurchaseError: text('last_purchase_error'),
    createdAt: createdAt(),
  },
  (t) => [
    index('phone_line_requests_user').on(t.userId, t.createdAt),
    index('phone_line_requests_purchase_due').on(t.nextPurchaseAt).where(sql`${t.status} = 'pending' AND ${t.nextPurchaseAt} IS NOT NULL`),
    // One pending request per user, enforced by the database under concurrency too.
    uniqueIndex('phone_line_requests_one_pending').on(t.userId).where(sql`${t.status} = 'pending'`),
  ],
);

export const slackApps = pgTable(
  'slack_apps',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    assistantId: text('assistant_id')
      .notNull()
      .references(() => assistants.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['marketplace', 'workspace'] }).notNull(),
    /** The user whose workspace app this is (kind workspace). */
    userId: text('user_id'),
    botDisplayName: text('bot_display_name').notNull(),
    status: text('status').notNull().default('pending_credentials'),
    manifest: jsonb('manifest').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('slack_apps_assistant_kind_user').on(t.assistantId, t.kind, t.userId)],
);

/** Connections made through OAuth (Slack install or identity link, Teams). Provider tokens are sealed (JWE); `details` keeps the non-secret part. */
export const oauthConnections = pgTable('oauth_connections', {
  id: idColumn(),
  accountId: text('account_id')
    .notNull()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  provider: text('provider', { enum: oauthProviders }).notNull(),
  purpose: text('purpose').notNull(),
  userId: text('user_id'),
  assistantId: text('assistant_id'),
  target: jsonb('target').$type<Record<string, unknown>>().notNull().default({}),
  /** The provider's token response sealed with server/secrets/sealed.ts, never stored in clear. */
  tokens: text('tokens').notNull(),
  /** What the response says besides secrets (workspace, scopes, expiry). */
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: createdAt(),
});

/**
 * OAuth connections in flight, one per signed state (`id` is its jti): the state is bound to the
 * browser that opened the begin link (the SHA-256 of a cookie set there) and is accepted once.
 * Rows past `expiresAt` are swept: the state's own expiry refuses them anyway.
 */
export const oauthFlows = pgTable(
  'oauth_flows',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: oauthProviders }).notNull(),
    bindingHash: text('binding_hash'),
    begunAt: ts('begun_at'),
    consumedAt: ts('consumed_at'),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('oauth_flows_expiry').on(t.expiresAt)],
);
