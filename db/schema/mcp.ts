import { boolean, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts } from './columns';

/**
 * An MCP server's OAuth authorization in progress (the MCP authorization flow): started by
 * POST /skills/{skillId}/oauth/start, finished once by the callback that names its `state`.
 * The PKCE verifier and the registered client are sealed; the row is deleted when used.
 */
export const mcpOauthFlows = pgTable(
  'mcp_oauth_flows',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    skillId: text('skill_id').notNull(),
    /** Who started it (null: an account key for an app-wide skill). */
    userId: text('user_id'),
    /** The random value the authorization server hands back to the callback. */
    state: text('state').notNull(),
    /** Sealed: {codeVerifier, clientInformation}. */
    sealed: text('sealed').notNull(),
    /** Where the person is sent once the callback is done (validated against the account's origins by the caller). */
    returnTo: text('return_to'),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('mcp_oauth_flows_state').on(t.state)],
);

/**
 * What an MCP tool call answered: passed-through reads (for the record) and released acting
 * calls (the skill_action dispatch that made it). `dispatchId` is unique: one call per dispatch.
 */
export const mcpToolCalls = pgTable(
  'mcp_tool_calls',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    skillId: text('skill_id').notNull(),
    toolName: text('tool_name').notNull(),
    taskId: text('task_id'),
    dispatchId: text('dispatch_id'),
    input: jsonb('input').$type<Record<string, unknown>>().notNull(),
    /** The server's content (text parts joined, capped), or the error. */
    result: jsonb('result').$type<unknown>(),
    isError: boolean('is_error').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('mcp_tool_calls_dispatch').on(t.dispatchId), index('mcp_tool_calls_task').on(t.taskId, t.createdAt)],
);

export type McpToolCallRow = typeof mcpToolCalls.$inferSelect;
