import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

export const skillKinds = ['workflow', 'mcp', 'instructions', 'prompt', 'browser'] as const;
/**
 * The browser skill: the account's agents may use the workspace browser (spec document 2,
 * "browser automation also needs the browser skill installed on the account"). One per account,
 * account-wide; new accounts get it at creation, and migration 0061 gave it to every account
 * that existed before it.
 */
export const BROWSER_SKILL = {
  name: 'browser',
  /** The name when an account-wide skill of the account already holds `browser`. */
  fallbackName: 'workspace-browser',
  title: 'Workspace browser',
  description: "Lets the account's assistants open, read and act on web pages in each user's workspace browser (browser_open, browser_read, browser_act).",
} as const;
/** When an instructions or prompt skill joins a run's context: every run of its users, or only tasks whose `skills[]` name it. */
export const skillApplies = ['always', 'when_named'] as const;
export const scheduleTypes = ['now', 'recurring', 'trigger-based'] as const;
export const overflowBehaviors = ['queue', 'drop', 'replace'] as const;
export const mcpTransports = ['streamable-http', 'sse'] as const;
export const mcpAuthTypes = ['none', 'oauth', 'api_key'] as const;

/**
 * A skill (spec document 2, Skills): a workflow (instructions and triggers; each firing creates a
 * task), an MCP server whose tools become the agent's, instructions (text a run's context gets
 * when the skill applies) or a prompt (a tenant prompt, rendered, joining the context the same way). `ownerUserId` null: installed for the
 * whole account (an account key without X-User-Email created it). The MCP secret (API key or
 * OAuth tokens) is sealed with the master key.
 */
export const skills = pgTable(
  'skills',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    ownerUserId: text('owner_user_id').references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: skillKinds }).notNull(),
    /** A slug, unique per account and owner (app-wide skills share one namespace). */
    name: text('name').notNull(),
    title: text('title'),
    description: text('description'),
    enabled: boolean('enabled').notNull().default(true),
    instructions: text('instructions'),
    triggers: jsonb('triggers').$type<Record<string, unknown>[]>().notNull().default([]),
    scheduleType: text('schedule_type', { enum: scheduleTypes }),
    maxRuns: integer('max_runs'),
    recurrenceEndsAt: ts('recurrence_ends_at'),
    maxConcurrent: integer('max_concurrent'),
    cooldownMs: integer('cooldown_ms'),
    overflowBehavior: text('overflow_behavior', { enum: overflowBehaviors }).notNull().default('queue'),
    /** Firings that created a task so far (maxRuns counts these). */
    runCount: integer('run_count').notNull().default(0),
    lastFiredAt: ts('last_fired_at'),
    mcpServerUrl: text('mcp_server_url'),
    mcpTransport: text('mcp_transport', { enum: mcpTransports }),
    mcpAuthType: text('mcp_auth_type', { enum: mcpAuthTypes }),
    mcpSecretSealed: text('mcp_secret_sealed'),
    mcpServerInfo: jsonb('mcp_server_info').$type<unknown>(),
    /** Instructions and prompt skills: when their text joins a run (skillApplies). */
    applies: text('applies', { enum: skillApplies }),
    /** A prompt skill: the tenant prompt API's prompt by name, a published version (null: the latest published), its variables' values. */
    promptName: text('prompt_name'),
    promptVersion: integer('prompt_version'),
    promptVariables: jsonb('prompt_variables').$type<Record<string, string>>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('skills_account_owner_name').on(t.accountId, sql`coalesce(${t.ownerUserId}, '')`, t.name),
    index('skills_account_kind').on(t.accountId, t.kind, t.createdAt),
    // One browser skill per account, whatever its name.
    uniqueIndex('skills_account_browser').on(t.accountId).where(sql`${t.kind} = 'browser'`),
  ],
);

export const firingStatuses = ['queued', 'started', 'dropped', 'replaced', 'skipped'] as const;

/**
 * One firing of a workflow's trigger. `eventKey` makes a firing idempotent (the same cron minute,
 * the same calendar event and offset, the same email fire once). A firing that may not start yet
 * (maxConcurrent reached) waits `queued` (overflow `queue`), is `dropped`, or replaces the
 * oldest queued one (`replace`); `started` names the task it created.
 */
export const workflowFirings = pgTable(
  'workflow_firings',
  {
    id: idColumn(),
    skillId: text('skill_id')
      .notNull()
      .references(() => skills.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
    userId: text('user_id').notNull(),
    triggerKind: text('trigger_kind').notNull(),
    eventKey: text('event_key').notNull(),
    status: text('status', { enum: firingStatuses }).notNull().default('queued'),
    reason: text('reason'),
    taskId: text('task_id'),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default({}),
    dueAt: ts('due_at').notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('workflow_firings_event').on(t.skillId, t.eventKey), index('workflow_firings_skill_status').on(t.skillId, t.status, t.createdAt)],
);

/**
 * What a trigger remembers between evaluations: a condition's last value (fires on the
 * false→true edge only), an inactivity window's start, a compound trigger's parts seen, and
 * when it is next due (`nextAt`, indexed: the scheduler reads only what is due).
 */
export const workflowTriggerState = pgTable(
  'workflow_trigger_state',
  {
    skillId: text('skill_id')
      .notNull()
      .references(() => skills.id, { onDelete: 'cascade' }),
    triggerKey: text('trigger_key').notNull(),
    accountId: text('account_id').notNull(),
    state: jsonb('state').$type<Record<string, unknown>>().notNull().default({}),
    nextAt: ts('next_at'),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.skillId, t.triggerKey] }), index('workflow_trigger_state_next').on(t.nextAt)],
);

export type SkillRow = typeof skills.$inferSelect;
export type WorkflowFiringRow = typeof workflowFirings.$inferSelect;
