import { index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns';

/*
 * Idempotency-Key (spec 5, Idempotency): the first answer to a POST or PATCH, kept per credential
 * and key for 24 hours and replayed to a retry. Written by the kernel (server/http/idempotency*.ts),
 * never by a service: a row says nothing about the resource, only what the caller was told.
 */

/**
 * `running`: the first request is being answered (a second one waits, then gets 409);
 * `done`: `status`, `headers` and `body` are the answer to replay;
 * `streaming`: the first answer was a stream (SSE): nothing is replayed, a retry gets 409 while
 * the work it started (`streamRef`, the chat turn) runs and a JSON summary of it afterwards.
 */
export const idempotencyStates = ['running', 'done', 'streaming'] as const;

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    /** Whose key: the credential (`api_key:<id>`, `certificate:<kid>`, or a hash of any other token). */
    scope: text('scope').notNull(),
    /** The client's Idempotency-Key, as sent. */
    key: text('key').notNull(),
    /** SHA-256 of method, path with query, acting user and body: the same key for another request is 422. */
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: idempotencyStates }).notNull().default('running'),
    status: integer('status'),
    headers: jsonb('headers').$type<Record<string, string>>(),
    body: text('body'),
    /** For `streaming`: what the stream answered for (the chat turn's executionId). */
    streamRef: text('stream_ref'),
    /** A `running` row whose process died is taken over once this has passed. */
    lockedUntil: ts('locked_until'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index('idempotency_keys_expires').on(t.expiresAt)],
);

export type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;
