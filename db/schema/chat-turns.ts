import { boolean, index, integer, jsonb, numeric, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { modelTiers } from './agent';
import { chats } from './chats';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

/*
 * The streaming chat turn (docs/chat-streaming.md): one row per POST /chats/{chatId}/process,
 * whose id is the executionId clients reconnect with; every event it streamed, kept a day so a
 * client that dropped can replay what it missed; the tool calls it made (replayed to the model
 * in later turns); and one usage row per model call.
 */

export const chatTurnStatuses = ['queued', 'running', 'completed', 'failed'] as const;
export type ChatTurnStatus = (typeof chatTurnStatuses)[number];
export type ChatTurnError = { code: string; message: string };

export const chatTurns = pgTable(
  'chat_turns',
  {
    id: idColumn(),
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The chat message the turn answers (saved by the process call, or an earlier one it names). */
    messageId: text('message_id').notNull(),
    status: text('status', { enum: chatTurnStatuses }).notNull().default('queued'),
    /** The chat's tier when the turn was recorded (a chat's tier is fixed at creation). */
    modelTier: text('model_tier', { enum: modelTiers }).notNull(),
    error: jsonb('error').$type<ChatTurnError>(),
    /** Tasks the turn opened with create_task, in order (the `message` event's taskIds). */
    taskIds: text('task_ids').array().notNull().default([]),
    replyMessageId: text('reply_message_id'),
    /** The seq of the turn's newest event: events take the next numbers under this row's lock. */
    lastSeq: integer('last_seq').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    startedAt: ts('started_at'),
    endedAt: ts('ended_at'),
  },
  (t) => [index('chat_turns_chat').on(t.chatId, t.createdAt)],
);
export type ChatTurnRow = typeof chatTurns.$inferSelect;

/**
 * The turn's events in order; `seq` is the SSE `id:`. A trigger (migration chat_turns_notify)
 * sends NOTIFY chat_turn_events with `<turnId>:<newest seq>` for every insert, so a stream served
 * by another process of the same database wakes at once. Deleted a day after they were written.
 */
export const chatTurnEvents = pgTable(
  'chat_turn_events',
  {
    turnId: text('turn_id')
      .notNull()
      .references(() => chatTurns.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    kind: text('kind').notNull(),
    data: jsonb('data').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.turnId, t.seq] }), index('chat_turn_events_created').on(t.createdAt)],
);
export type ChatTurnEventRow = typeof chatTurnEvents.$inferSelect;

/**
 * One tool call of a turn, written with its effect in one transaction: a retried step finds it (by
 * its model call and place, not the provider's call id, which some servers repeat) and does nothing again.
 */
export const chatToolCalls = pgTable(
  'chat_tool_calls',
  {
    id: idColumn(),
    turnId: text('turn_id')
      .notNull()
      .references(() => chatTurns.id, { onDelete: 'cascade' }),
    chatId: text('chat_id').notNull(),
    accountId: text('account_id').notNull(),
    /** The model call (1-based) that asked for it, and its place among that call's tool calls. */
    step: integer('step').notNull(),
    position: integer('position').notNull(),
    callId: text('call_id').notNull(),
    toolName: text('tool_name').notNull(),
    input: jsonb('input').notNull(),
    output: jsonb('output'),
    /** The task a create_task call opened. */
    taskId: text('task_id'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('chat_tool_calls_turn_step').on(t.turnId, t.step, t.position), index('chat_tool_calls_chat').on(t.chatId)],
);
export type ChatToolCallRow = typeof chatToolCalls.$inferSelect;

/** Usage of one model call of a turn (GET /chats/{chatId}/usage), like task_model_calls. */
export const chatModelCalls = pgTable(
  'chat_model_calls',
  {
    id: idColumn(),
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    turnId: text('turn_id')
      .notNull()
      .references(() => chatTurns.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
    /** The model call's place in its turn, from 0; the same (turn, seq) twice records once. */
    seq: integer('seq').notNull(),
    modelTier: text('model_tier', { enum: modelTiers }).notNull(),
    model: text('model'),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    cacheReadTokens: integer('cache_read_tokens').notNull().default(0),
    cacheCreationTokens: integer('cache_creation_tokens').notNull().default(0),
    chargedCredits: numeric('charged_credits', { precision: 20, scale: 6, mode: 'number' }).notNull().default(0),
    isBillable: boolean('is_billable').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('chat_model_calls_turn_seq').on(t.turnId, t.seq),
    index('chat_model_calls_chat').on(t.chatId),
    // The console's spend (console/overview.ts): one account's calls of this month, not every account's.
    index('chat_model_calls_account_created').on(t.accountId, t.createdAt),
  ],
);
export type ChatModelCallRow = typeof chatModelCalls.$inferSelect;
