import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns';

/*
 * The transactional outbox of work handed to the durable engine: one row per queued task run or
 * chat turn, written in the transaction that queued it (server/tasks/runs.ts, server/chats/
 * turn-start.ts). The process that committed sends the engine event and stamps `sentAt`; should it
 * die between the commit and the send, or the send fail, the sweep (inngest/functions/
 * engine-handoff-sweep.ts) sends the rows nobody stamped. The event id is the row's id (the run's or
 * turn's id), so an engine that already has it keeps one.
 */

export const engineHandoffKinds = ['task_run', 'chat_turn'] as const;
export type EngineHandoffKind = (typeof engineHandoffKinds)[number];

export const engineHandoffs = pgTable(
  'engine_handoffs',
  {
    /** The task run's or chat turn's id, and so the event id. */
    id: text('id').primaryKey(),
    kind: text('kind', { enum: engineHandoffKinds }).notNull(),
    accountId: text('account_id').notNull(),
    /** The event's data exactly as the engine expects it. */
    data: jsonb('data').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    /** The engine accepted the event. */
    sentAt: ts('sent_at'),
    /** A sweep is sending it until then (several processes sweep; one sends). */
    claimedUntil: ts('claimed_until'),
  },
  (t) => [index('engine_handoffs_unsent').on(t.createdAt).where(sql`${t.sentAt} IS NULL`), index('engine_handoffs_sent').on(t.sentAt)],
);

export type EngineHandoffRow = typeof engineHandoffs.$inferSelect;
