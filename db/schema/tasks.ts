import { type AnyPgColumn, boolean, check, index, integer, jsonb, numeric, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { accounts } from './accounts';
import { modelTiers } from './agent';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

/** Every task status of spec document 2 ("Task statuses"); which moves reach which is server/tasks/transitions.ts. */
/** Why a task waits for access: the handoff's outcome, and until when it was deferred. */
export type HandoffHold = { kind?: 'handoff'; outcome: 'deferred' | 'declined' | 'expired'; handoffId: string; until: string | null };
/**
 * A tool needed a calendar the user has not connected (or whose connection is revoked or failing):
 * since when the task waits, and the unusable connection it waits on, if any (server/calendars/access.ts).
 */
export type CalendarHold = { kind: 'calendar'; since: string; connectionId: string | null };
export type AccessHold = HandoffHold | CalendarHold;

export const taskStatuses = [
  'pending',
  'executing',
  'awaiting_user_input',
  'awaiting_non_user_response',
  'alarm_set',
  'subtasks_running',
  'scheduled',
  'on_hold',
  'paused',
  'message_received',
  'conversation',
  'deferred_access',
  'failed_access',
  'credits_blocked',
  'completed',
  'done_user_marked',
  'handled_by_other',
  'error',
  'abandoned',
  'archived',
] as const;
export type TaskStatus = (typeof taskStatuses)[number];

export const alarmStatuses = ['set', 'fired', 'cancelled'] as const;
/**
 * Why the system holds a task in `paused` (spec 2: "Held by the system"); null for a pause the user
 * asked for (PUT). `owner_inactive`: its owner is suspended or deactivated, so no run may act for
 * them; the hold lifts when they are active again (server/tasks/holds.ts).
 */
export const systemHolds = ['owner_inactive'] as const;
export type SystemHold = (typeof systemHolds)[number];
export const approvalModes = ['auto', 'time-boxed', 'manual'] as const;
export const planItemStatuses = ['pending', 'done', 'skipped', 'blocked'] as const;
export type PlanItem = { title: string; status: (typeof planItemStatuses)[number] };
/**
 * A person a task waits on (wait_for_reply): by email, by phone (E.164), by a Slack, Teams or
 * Telegram user id, or by a contact (every email and phone the contact holds when the reply comes).
 * Entries written before replies on every channel hold only email, name and contactId.
 */
export type WaitingOnContact = {
  email: string | null;
  name: string | null;
  contactId: string | null;
  phone?: string | null;
  slackUserId?: string | null;
  teamsUserId?: string | null;
  telegramUserId?: string | null;
};

/**
 * Where untrusted content entered a run (spec 5, Taint and held dispatches): an inbound email or a
 * contact's reply, a web page, a document, an MCP tool result, another person's message, or an
 * external trigger (a workflow fired by mail, a webhook or a calendar event). `ref` names it: the
 * sender's address, the URL, the file id, the tool, the trigger.
 */
export const taintKinds = ['email', 'web', 'file', 'mcp', 'message', 'trigger'] as const;
export type TaintKind = (typeof taintKinds)[number];
export type TaintSource = { kind: TaintKind; ref: string };

export const tasks = pgTable(
  'tasks',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** The owner: the user the task works for. */
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The assistant working on it (on the owner's roster when created). Not a foreign key: released assistants hand their open tasks on first (assistants/open-tasks.ts). */
    assistantId: text('assistant_id').notNull(),
    /** Subtasks go with their parent. */
    parentTaskId: text('parent_task_id').references((): AnyPgColumn => tasks.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    status: text('status', { enum: taskStatuses }).notNull().default('pending'),
    /** Resolved at creation (own, organization default, medium); fixed once a run has started. */
    modelTier: text('model_tier', { enum: modelTiers }).notNull(),
    createdBy: text('created_by', { enum: ['user', 'agent'] }).notNull().default('user'),
    /** Labels set by Steward: a workflow's tasks carry `workflow:<skillId>`. */
    tags: text('tags').array().notNull().default([]),
    /** For tasks the agent proposes and holds for the user (approve/decline); null for the user's own. */
    proposalStatus: text('proposal_status', { enum: ['pending_user_approval', 'approved', 'declined'] }),
    /** The task's own approval mode (PUT); null follows the user's autonomy settings. */
    approvalMode: text('approval_mode', { enum: approvalModes }),
    summary: text('summary'),
    plan: jsonb('plan').$type<PlanItem[]>().notNull().default([]),
    waitingOnContacts: jsonb('waiting_on_contacts').$type<WaitingOnContact[]>().notNull().default([]),
    alarmWakeAt: ts('alarm_wake_at'),
    alarmHeadline: text('alarm_headline'),
    alarmStatus: text('alarm_status', { enum: alarmStatuses }),
    readyForReview: boolean('ready_for_review').notNull().default(false),
    /** The assistant that took the thread, when status is handled_by_other. */
    handledByAssistantId: text('handled_by_assistant_id'),
    /** Or the person (an email address) who took it. */
    handledByEmail: text('handled_by_email'),
    /**
     * Access the user refused or put off (a handoff declined, expired or deferred): the run that
     * reads the outcome and ends waiting for the user rests in failed_access or deferred_access
     * instead (server/tasks/transitions.ts). Cleared by the next move out of executing.
     */
    accessHold: jsonb('access_hold').$type<AccessHold | null>(),
    /** Set only while the system holds the task in `paused` (transitions.ts, move `hold`); cleared by any move out. */
    systemHold: text('system_hold', { enum: systemHolds }),
    /** Feedback of the task's followers other than the owner (POST feedback), by user id. */
    followerFeedback: jsonb('follower_feedback').$type<Record<string, 'like' | 'dislike'>>().notNull().default({}),
    scheduledFor: ts('scheduled_for'),
    completedAt: ts('completed_at'),
    feedback: text('feedback', { enum: ['like', 'dislike'] }),
    skills: jsonb('skills').$type<string[]>().notNull().default([]),
    /** Emails of people who follow the task. */
    followers: jsonb('followers').$type<string[]>().notNull().default([]),
    /** The email the task acts for (default the owner's). */
    onBehalfOf: text('on_behalf_of').notNull(),
    /**
     * Untrusted content reached one of its runs (or the run that created it): from then on no
     * dispatch of it to anyone but the owner is released without a person (server/agent/taint).
     * Never cleared: the content stays in the conversation every later run replays.
     */
    tainted: boolean('tainted').notNull().default(false),
    taintSources: jsonb('taint_sources').$type<TaintSource[]>().notNull().default([]),
    /**
     * The first task of the tree this one belongs to: tasks a run creates (subtasks and
     * create_task) join their creator's tree. Null for a root. STEWARD_TASK_TREE_MAX counts a tree.
     */
    rootTaskId: text('root_task_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('tasks_root').on(t.rootTaskId).where(sql`${t.rootTaskId} IS NOT NULL`),
    // A page of one user's tasks, newest first (id breaks ties so pages never overlap).
    // Ascending on purpose: lists read them backwards for ORDER BY ... DESC. Drizzle's .desc() means
    // DESC NULLS LAST, which does not match a plain DESC order, and Postgres then sorts every row.
    index('tasks_user_created').on(t.userId, t.createdAt, t.id),
    index('tasks_account_created').on(t.accountId, t.createdAt, t.id),
    index('tasks_parent').on(t.parentTaskId),
    index('tasks_assistant_status').on(t.assistantId, t.status),
    // What the runtime wakes: set alarms and scheduled starts, by time.
    index('tasks_alarm_due').on(t.alarmWakeAt).where(sql`${t.alarmStatus} = 'set'`),
    index('tasks_scheduled_due').on(t.scheduledFor).where(sql`${t.status} = 'scheduled'`),
    // What the holds sweep looks at (server/tasks/holds.ts): held tasks, conversations with an unread message, failures to give up.
    index('tasks_system_hold').on(t.userId).where(sql`${t.systemHold} IS NOT NULL`),
    index('tasks_message_received').on(t.accountId).where(sql`${t.status} = 'message_received'`),
    index('tasks_failed_idle').on(t.updatedAt).where(sql`${t.status} IN ('error', 'failed_access')`),
    // What waits on its owner (server/tasks/needs-user.ts: the hosted home and inbox, on every page's
    // count), newest change first; the predicate is that file's, word for word, so the planner uses it.
    index('tasks_needs_user')
      .on(t.userId, t.updatedAt, t.id)
      .where(sql`${t.status} IN ('awaiting_user_input', 'error', 'failed_access', 'credits_blocked', 'on_hold', 'paused') OR ${t.proposalStatus} = 'pending_user_approval'`),
    // The spec's guarantee, held by the database too: these statuses never exist without an active alarm.
    check(
      'tasks_waiting_needs_alarm',
      sql`${t.status} NOT IN ('awaiting_user_input', 'awaiting_non_user_response', 'subtasks_running', 'alarm_set') OR (${t.alarmStatus} = 'set' AND ${t.alarmWakeAt} IS NOT NULL)`,
    ),
    check('tasks_scheduled_needs_time', sql`${t.status} <> 'scheduled' OR ${t.scheduledFor} IS NOT NULL`),
  ],
);

export type TaskRow = typeof tasks.$inferSelect;

/**
 * `contact`: a message from outside the user (an email reply of a person the task waits on), always
 * untrusted data. `event`: what fired the task when an external trigger created it (a workflow's
 * email, webhook or calendar event; `platform` names it), untrusted data too. `system`: Steward's
 * own note on the task (it read untrusted content, a limit was reached, a message could not be
 * verified): shown to the user, never read by the model as theirs.
 */
export const activityKinds = ['user', 'assistant', 'peer', 'tool', 'contact', 'event', 'system'] as const;
export const deliveryStates = ['staged', 'held', 'provider_accepted', 'unknown'] as const;

/** The task conversation: messages of the user, the assistant and peers, and the assistant's tool calls. */
export const taskActivities = pgTable(
  'task_activities',
  {
    id: idColumn(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
    kind: text('kind', { enum: activityKinds }).notNull(),
    content: text('content').notNull().default(''),
    platform: text('platform'),
    /** Outbound assistant messages only. */
    deliveryState: text('delivery_state', { enum: deliveryStates }),
    /** The run it belongs to (a message sent during a run goes to that run). */
    runId: text('run_id'),
    /** Drive files attached by the user (ids readable by the owner when attached). */
    fileIds: jsonb('file_ids').$type<string[]>().notNull().default([]),
    toolName: text('tool_name'),
    toolCallId: text('tool_call_id'),
    toolInput: jsonb('tool_input').$type<unknown>(),
    toolOutput: jsonb('tool_output').$type<unknown>(),
    createdAt: createdAt(),
  },
  (t) => [index('task_activities_task_created').on(t.taskId, t.createdAt, t.id)],
);

export type TaskActivityRow = typeof taskActivities.$inferSelect;

export const taskRunStatuses = ['queued', 'running', 'finished', 'failed', 'cancelled'] as const;

/** Run history: one row per run of a task (its id is the executionId), with the usage the provider reported. */
export const taskRuns = pgTable(
  'task_runs',
  {
    id: idColumn(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
    /** The task's owner (STEWARD_USER_MAX_CONCURRENT_RUNS counts one user's running runs). */
    userId: text('user_id'),
    status: text('status', { enum: taskRunStatuses }).notNull().default('queued'),
    /**
     * What started it: the user's process call (or an approval, or the assistant creating the
     * task), a scheduled start, an alarm, a reply, a wake-up, or the task's subtasks having all
     * ended. No CHECK constraint holds these values: a new one needs no migration.
     */
    trigger: text('trigger', { enum: ['process', 'schedule', 'alarm', 'reply', 'wake', 'subtasks', 'cart'] }).notNull(),
    modelTier: text('model_tier', { enum: modelTiers }).notNull(),
    model: text('model'),
    startedAt: ts('started_at'),
    endedAt: ts('ended_at'),
    error: text('error'),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    cacheReadTokens: integer('cache_read_tokens').notNull().default(0),
    cacheCreationTokens: integer('cache_creation_tokens').notNull().default(0),
    /** Untrusted content entered this run (it started on a tainted task, or read some): its sources. */
    tainted: boolean('tainted').notNull().default(false),
    taintSources: jsonb('taint_sources').$type<TaintSource[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (t) => [
    index('task_runs_task_created').on(t.taskId, t.createdAt),
    index('task_runs_user_open').on(t.userId, t.createdAt).where(sql`${t.status} IN ('queued', 'running')`),
    index('task_runs_open').on(t.taskId).where(sql`${t.status} IN ('queued', 'running')`),
    // The console's failures (console/overview.ts): a week's failed runs of an account, newest first, without reading its other runs.
    index('task_runs_account_failed').on(t.accountId, t.createdAt).where(sql`${t.status} = 'failed'`),
  ],
);

export type TaskRunRow = typeof taskRuns.$inferSelect;

/**
 * Usage per model step: one row per model call of a run, with the provider's four disjoint token
 * counts and what the call was charged (server/models/prices.ts decides). The runtime writes
 * them through recordModelCall (server/tasks/usage.ts); GET /tasks/{taskId}/usage reads them.
 * (run_id, seq) is unique so a retried durable step never counts a call twice.
 */
export const taskModelCalls = pgTable(
  'task_model_calls',
  {
    id: idColumn(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    runId: text('run_id')
      .notNull()
      .references(() => taskRuns.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
    /** The step's position in its run, from 0. */
    seq: integer('seq').notNull(),
    modelTier: text('model_tier', { enum: modelTiers }).notNull(),
    model: text('model'),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    cacheReadTokens: integer('cache_read_tokens').notNull().default(0),
    cacheCreationTokens: integer('cache_creation_tokens').notNull().default(0),
    /** Credits to six decimals (creditsFor rounds there): numeric, so sums never drift. */
    chargedCredits: numeric('charged_credits', { precision: 20, scale: 6, mode: 'number' }).notNull().default(0),
    isBillable: boolean('is_billable').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('task_model_calls_run_seq').on(t.runId, t.seq),
    index('task_model_calls_task').on(t.taskId),
    // The console's spend (console/overview.ts): one account's calls of this month, not every account's.
    index('task_model_calls_account_created').on(t.accountId, t.createdAt),
  ],
);

export type TaskModelCallRow = typeof taskModelCalls.$inferSelect;
