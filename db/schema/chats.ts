import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { chatPlatforms } from './channel-names';
import { modelTiers } from './agent';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

export const chatStatuses = ['active', 'archived'] as const;
export const chatEfforts = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
/** `contact`: someone outside the user (inbound email), shown to the model as untrusted data. */
export const chatMessageRoles = ['user', 'assistant', 'contact', 'system'] as const;
/** As task activities' delivery states, plus `internal` (stayed inside Steward) and `received` (came in from a channel). */
export const chatDeliveryStates = ['internal', 'received', 'staged', 'held', 'provider_accepted', 'unknown', 'failed'] as const;

export type ChatParticipant = { type: 'phone' | 'email'; value: string };
export type ChatFile = { fileId: string; filename?: string | null; mimeType?: string | null };

/**
 * A conversation of a user with one of their assistants (spec document 2, Chat). Each 1:1 thread
 * on a channel is its own chat: `threadKey` names the counterpart (an email address for
 * `platform: email`), unique per assistant and platform. The tier is fixed at creation.
 */
export const chats = pgTable(
  'chats',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Not a foreign key, like tasks: a released assistant's chats stay readable. */
    assistantId: text('assistant_id').notNull(),
    title: text('title'),
    status: text('status', { enum: chatStatuses }).notNull().default('active'),
    platform: text('platform', { enum: chatPlatforms }).notNull().default('chat'),
    participants: jsonb('participants').$type<ChatParticipant[]>().notNull().default([]),
    messageCount: integer('message_count').notNull().default(0),
    lastMessageAt: ts('last_message_at'),
    /** lastMessageAt, or createdAt before any message: what "most recent first" orders by. */
    activityAt: ts('activity_at').notNull().defaultNow(),
    createdForTaskId: text('created_for_task_id'),
    tags: text('tags').array().notNull().default([]),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    modelTier: text('model_tier', { enum: modelTiers }).notNull(),
    effort: text('effort', { enum: chatEfforts }),
    threadKey: text('thread_key'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Ascending, read backwards for "most recent first" (descending indexes sort NULLs apart).
    index('chats_user_activity').on(t.userId, t.activityAt, t.id),
    index('chats_account_activity').on(t.accountId, t.activityAt, t.id),
    index('chats_title_trgm').using('gin', sql`lower(coalesce(${t.title}, '')) gin_trgm_ops`),
    uniqueIndex('chats_thread').on(t.assistantId, t.platform, t.threadKey).where(sql`${t.threadKey} IS NOT NULL`),
  ],
);

/** One message of a chat (spec document 2, Chat message); `turnId` is the streaming turn that wrote it. */
export const chatMessages = pgTable(
  'chat_messages',
  {
    id: idColumn(),
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
    referenceId: text('reference_id'),
    role: text('role', { enum: chatMessageRoles }).notNull(),
    from: text('from'),
    to: text('to').array().notNull().default([]),
    cc: text('cc').array().notNull().default([]),
    subject: text('subject'),
    platform: text('platform', { enum: chatPlatforms }).notNull().default('chat'),
    content: text('content').notNull(),
    files: jsonb('files').$type<ChatFile[]>().notNull().default([]),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    deliveryState: text('delivery_state', { enum: chatDeliveryStates }).notNull().default('internal'),
    deliveryTaskId: text('delivery_task_id'),
    deliveryCartId: text('delivery_cart_id'),
    turnId: text('turn_id'),
    createdAt: createdAt(),
  },
  (t) => [index('chat_messages_chat').on(t.chatId, t.createdAt, t.id)],
);

export type ChatRow = typeof chats.$inferSelect;
export type ChatMessageRow = typeof chatMessages.$inferSelect;
