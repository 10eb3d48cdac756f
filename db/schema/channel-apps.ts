import { sql } from 'drizzle-orm';
import { customType, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { carts } from './carts';
import { chatAppChannels, type PortChatApp } from './channel-names';
import { slackApps } from './channels';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

/*
 * Slack and Microsoft Teams as channels (issue 33): each assistant's own Slack app and its
 * installations, the Slack and Teams identities linked to Steward users, provider callbacks kept
 * once, Teams conversations a bot can write to again, and the approval cards posted to owners.
 * Secrets (client secret, signing secret, bot tokens) are sealed with server/secrets and never
 * stored in clear.
 */

/** The credentials the person who created an assistant's Slack app copied from Slack's app page. */
export const slackAppCredentials = pgTable('slack_app_credentials', {
  appId: text('app_id')
    .primaryKey()
    .references(() => slackApps.id, { onDelete: 'cascade' }),
  accountId: text('account_id')
    .notNull()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  /** Slack's client id: public (it is in every authorize URL). */
  clientId: text('client_id').notNull(),
  /** Slack's own id of the app (A…), when given: events name it in `api_app_id`. */
  slackAppId: text('slack_app_id'),
  /** `{clientSecret, signingSecret}` sealed (JWE, purpose `slack-app`). */
  sealed: text('sealed').notNull(),
  setByUserId: text('set_by_user_id'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export type SlackAppCredentialsRow = typeof slackAppCredentials.$inferSelect;

/** An app installed in one Slack workspace: its bot user and bot token (sealed). */
export const slackInstallations = pgTable(
  'slack_installations',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    appId: text('app_id')
      .notNull()
      .references(() => slackApps.id, { onDelete: 'cascade' }),
    /** The Slack workspace (T…). */
    teamId: text('team_id').notNull(),
    botUserId: text('bot_user_id'),
    /** The bot token (xoxb-…) sealed (purpose `slack-bot`). */
    botToken: text('bot_token').notNull(),
    installedByUserId: text('installed_by_user_id'),
    connectionId: text('connection_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('slack_installations_app_team').on(t.appId, t.teamId)],
);

export type SlackInstallationRow = typeof slackInstallations.$inferSelect;

export const channelIdentityProviders = chatAppChannels;

/**
 * A Slack or Teams identity linked to a Steward user: only such an identity is proven, so only
 * its messages can be the owner's and only its button presses can decide the owner's carts.
 * Slack: through the link flow (the user signed in to Slack for the assistant's app); Teams:
 * through the directory of a tenant an organization or team admin connected.
 */
export const channelIdentities = pgTable(
  'channel_identities',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: channelIdentityProviders }).notNull(),
    /** The Slack workspace (team id) or the Microsoft tenant id. */
    workspaceId: text('workspace_id').notNull(),
    /** The Slack user id (U…) or the Entra object id (aadObjectId). */
    externalUserId: text('external_user_id').notNull(),
    /** The Slack app (slack_apps.id) the identity was linked through. */
    appId: text('app_id'),
    connectionId: text('connection_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('channel_identities_external').on(t.accountId, t.provider, t.workspaceId, t.externalUserId),
    index('channel_identities_user').on(t.userId, t.provider),
  ],
);

export type ChannelIdentityRow = typeof channelIdentities.$inferSelect;

export const channelEventStatuses = ['received', 'routed', 'ignored', 'failed'] as const;

/**
 * A verified provider callback (a Slack event, a Teams activity), kept once by the provider's id
 * (event_id, activity id) so a retry is acknowledged and never acted on twice. Stored before the
 * answer; routed after it.
 */
export const channelEvents = pgTable(
  'channel_events',
  {
    id: idColumn(),
    provider: text('provider', { enum: channelIdentityProviders }).notNull(),
    /** The Slack app (slack_apps.id) it came to, or `teams` for the deployment's bot. */
    appKey: text('app_key').notNull(),
    externalId: text('external_id').notNull(),
    accountId: text('account_id'),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: channelEventStatuses }).notNull().default('received'),
    reason: text('reason'),
    receivedAt: createdAt(),
    handledAt: ts('handled_at'),
  },
  (t) => [
    uniqueIndex('channel_events_external').on(t.provider, t.appKey, t.externalId),
    index('channel_events_pending').on(t.receivedAt).where(sql`${t.status} = 'received'`),
  ],
);

export type ChannelEventRow = typeof channelEvents.$inferSelect;

/** Where a posted approval lives at the provider, to update it with the outcome. */
export type ApprovalPostRef =
  /** A Teams card posted before Teams moved behind the port (still closed when its cart moves on). */
  | { provider: 'teams'; serviceUrl: string; conversationId: string; activityId: string }
  /** A port adapter's post (server/channels/adapter.ts): the connection, the thread and the message. */
  | { provider: PortChatApp; connectionId: string; thread: string; messageRef: string };

/**
 * One approval card per cart version and channel: the cart exactly as it will be sent with
 * Approve and Reject bound to its contentHash, posted to the owner's DM. A new version (an edit)
 * is posted again; the old card's buttons then refuse.
 */
export const channelApprovalPosts = pgTable(
  'channel_approval_posts',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    cartId: text('cart_id')
      .notNull()
      .references(() => carts.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    provider: text('provider', { enum: channelIdentityProviders }).notNull(),
    contentHash: text('content_hash').notNull(),
    state: text('state', { enum: ['posting', 'posted', 'failed', 'closed'] }).notNull().default('posting'),
    ref: jsonb('ref').$type<ApprovalPostRef | null>(),
    outcome: text('outcome'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('channel_approval_posts_version').on(t.cartId, t.provider, t.contentHash), index('channel_approval_posts_cart').on(t.cartId)],
);

export type ChannelApprovalPostRow = typeof channelApprovalPosts.$inferSelect;

/** The 1:1 conversation of a Teams user with the bot: where replies, notices and approval cards go. */
export const teamsConversations = pgTable(
  'teams_conversations',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    aadObjectId: text('aad_object_id').notNull(),
    /** The user's id in the channel (29:…), the bot's, and the conversation's (a:…). */
    teamsUserId: text('teams_user_id').notNull(),
    botId: text('bot_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    serviceUrl: text('service_url').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('teams_conversations_user').on(t.accountId, t.userId)],
);

export type TeamsConversationRow = typeof teamsConversations.$inferSelect;

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/**
 * A file the Teams bot offered a person in their 1:1 chat (a file consent card, issue 41): a bot's
 * file reaches a personal chat only once the person allows it into their OneDrive. The bytes wait
 * here until they answer, and are dropped then (uploaded, declined or failed).
 */
export const teamsFileOffers = pgTable(
  'teams_file_offers',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** Where the card was posted and who may answer it. */
    conversationId: text('conversation_id').notNull(),
    aadObjectId: text('aad_object_id').notNull(),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    content: bytea('content'),
    state: text('state', { enum: ['offered', 'uploading', 'uploaded', 'declined', 'failed'] })
      .notNull()
      .default('offered'),
    reason: text('reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('teams_file_offers_conversation').on(t.conversationId)],
);

export type TeamsFileOfferRow = typeof teamsFileOffers.$inferSelect;
