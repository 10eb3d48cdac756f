import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { assistants } from './assistants';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/*
 * An assistant's own connection on a channel adapter of the port (issue 41; server/channels/
 * adapter.ts): a Telegram bot today, the same row for any channel that connects by a credential the
 * user gives. The credential (a bot token) and the webhook's secret are sealed with
 * server/secrets (never readable from a dump); the link code that lets the owner prove their
 * identity on the channel is kept as a hash only.
 */
export const channelConnections = pgTable(
  'channel_connections',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    assistantId: text('assistant_id')
      .notNull()
      .references(() => assistants.id, { onDelete: 'cascade' }),
    /** The adapter's channel name (server/channels/adapters.ts). */
    channel: text('channel').notNull(),
    /** The provider's id of the connection (a Telegram bot's user id). */
    externalId: text('external_id').notNull(),
    /** How the provider names it (a bot's @username). */
    name: text('name'),
    /** JWE: the credential and the webhook secret, sealed for `channel-connection`. */
    sealed: text('sealed').notNull(),
    /** SHA-256 of the one-time code the owner sends to link their identity, and when it stops working. */
    linkCodeHash: text('link_code_hash'),
    linkCodeExpiresAt: ts('link_code_expires_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // One provider connection serves one assistant (a bot has one webhook), and an assistant has one per channel.
    uniqueIndex('channel_connections_external').on(t.channel, t.externalId),
    uniqueIndex('channel_connections_assistant').on(t.assistantId, t.channel),
    index('channel_connections_account').on(t.accountId),
  ],
);

export type ChannelConnectionRow = typeof channelConnections.$inferSelect;
