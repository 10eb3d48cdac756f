import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

/*
 * The channel layer's memory (server/messaging/): which conversation a message of a channel
 * belongs to, and the notices that find a user where they are.
 */

/**
 * One message of a channel thread, by the provider's id (an email's Message-ID): the chat or the
 * task (and notice) it belongs to. A reply names earlier messages of its thread (In-Reply-To,
 * References), and this table says where the thread goes: the owner's email chat, a task whose
 * notice they answer. Rows are written for what Steward sends and for what it receives.
 */
export const channelThreads = pgTable(
  'channel_threads',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** The person the thread belongs to (not the address: an identifier moved to another user carries no thread). */
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    assistantId: text('assistant_id').notNull(),
    channel: text('channel').notNull(),
    /** The provider's id of one message of the thread. */
    externalRef: text('external_ref').notNull(),
    direction: text('direction', { enum: ['in', 'out'] }).notNull(),
    chatId: text('chat_id'),
    taskId: text('task_id'),
    noticeId: text('notice_id'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('channel_threads_ref').on(t.accountId, t.channel, t.externalRef), index('channel_threads_chat').on(t.chatId)],
);

export type ChannelThreadRow = typeof channelThreads.$inferSelect;

/** What a notice tells the user about; `urgent` ones (a review window closing) ignore quiet hours. */
export const noticeKinds = ['approval', 'time_box', 'question', 'handoff', 'task_failed', 'credits_blocked', 'phone_line', 'calendar_access', 'reminder', 'team_join'] as const;
export type NoticeKind = (typeof noticeKinds)[number];
export const noticeStatuses = ['pending', 'sent', 'failed', 'skipped'] as const;

/**
 * A notice of what needs the user (an approval waiting, a time-boxed action about to run, a
 * question, a handoff, a task that failed or ran out of credits), sent on their preferred channel,
 * threaded so that a reply answers it, with a one-time link into the hosted app (only its hash is
 * kept). `dedupeKey` makes one notice per occasion however often its event is replayed; `dueAt`
 * holds a non-urgent notice until the user's working hours.
 */
export const notices = pgTable(
  'notices',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: noticeKinds }).notNull(),
    dedupeKey: text('dedupe_key').notNull(),
    taskId: text('task_id'),
    cartId: text('cart_id'),
    handoffId: text('handoff_id'),
    urgent: boolean('urgent').notNull().default(false),
    channel: text('channel').notNull(),
    status: text('status', { enum: noticeStatuses }).notNull().default('pending'),
    dueAt: ts('due_at').notNull().defaultNow(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    /** Where the one-time link leads in the hosted app (a path), and the link's token hash. */
    linkPath: text('link_path').notNull(),
    linkTokenHash: text('link_token_hash'),
    linkExpiresAt: ts('link_expires_at'),
    linkUsedAt: ts('link_used_at'),
    /** The provider's id of what was sent (an email's Message-ID), chosen before sending. */
    providerMessageId: text('provider_message_id'),
    error: text('error'),
    sentAt: ts('sent_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('notices_dedupe').on(t.accountId, t.dedupeKey),
    index('notices_due').on(t.dueAt).where(sql`${t.status} = 'pending'`),
    uniqueIndex('notices_link').on(t.linkTokenHash).where(sql`${t.linkTokenHash} IS NOT NULL`),
    index('notices_user').on(t.userId, t.createdAt),
  ],
);

export type NoticeRow = typeof notices.$inferSelect;
