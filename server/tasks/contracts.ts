import { z } from 'zod';
import { activityKinds, alarmStatuses, approvalModes, deliveryStates, modelTiers, planItemStatuses, systemHolds, taintKinds, taskStatuses } from '@/db/schema';
import { PageQuery } from '@/server/http/pagination';
import { PUT_STATUSES } from './transitions';

/** The spec's limit on one message saved to a task. */
export const MAX_MESSAGE_CHARS = 100_000;

const Tier = z.enum(modelTiers, { message: `must be one of ${modelTiers.join(', ')}` });
const ApprovalMode = z.enum(approvalModes, { message: `must be one of ${approvalModes.join(', ')} or null` });
const IsoDateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' });
const Email = z.email({ message: 'must be an email address' }).max(320);

const inFuture = (v: string | undefined) => v === undefined || new Date(v).getTime() > Date.now();
const FUTURE = 'must be in the future';

export const CreateTaskBody = z
  .object({
    title: z.string().trim().min(1, 'is required').max(500),
    /** An assistant on the user's roster: its id or its email. */
    assistant: z.string().trim().min(1, 'is required').max(320),
    description: z.string().max(MAX_MESSAGE_CHARS).optional(),
    status: z.enum(['pending', 'scheduled'], { message: 'must be pending or scheduled' }).optional(),
    scheduledFor: IsoDateTime.optional(),
    modelTier: Tier.optional(),
    skills: z.array(z.string().min(1).max(200)).max(50).optional(),
    followers: z.array(Email).max(50).optional(),
    onBehalfOf: Email.optional(),
  })
  .refine((b) => b.status !== 'scheduled' || b.scheduledFor !== undefined, { path: ['scheduledFor'], message: 'is required with status scheduled' })
  .refine((b) => inFuture(b.scheduledFor), { path: ['scheduledFor'], message: FUTURE });

export const UpdateTaskBody = z
  .object({
    status: z.enum(PUT_STATUSES, { message: `must be one of ${PUT_STATUSES.join(', ')}` }).optional(),
    scheduledFor: IsoDateTime.optional(),
    approvalMode: ApprovalMode.nullable().optional(),
    modelTier: Tier.optional(),
    /**
     * Another assistant or a person took the thread (spec 2, handled_by_other): an assistant on the
     * owner's roster (id or email), or a person's email. The task becomes handled_by_other; the
     * owner's process call reopens it.
     */
    handledBy: z.string().trim().min(1, 'must name an assistant or an email address').max(320).optional(),
  })
  .refine((b) => inFuture(b.scheduledFor), { path: ['scheduledFor'], message: FUTURE })
  .refine((b) => b.handledBy === undefined || b.status === undefined, { path: ['handledBy'], message: 'cannot be sent with status (it sets handled_by_other)' });

export const ListTasksQuery = PageQuery.extend({
  /** Account key without X-User-Email: only this owner's tasks. */
  ownerEmail: z.string().trim().max(320).optional(),
  status: z.enum(taskStatuses, { message: 'must be a task status' }).optional(),
  assistant: z.string().max(100).optional(),
});

export const ProcessTaskBody = z.object({
  message: z.string().max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`).optional(),
  files: z
    .array(z.object({ fileId: z.string().min(1).max(100) }))
    .max(20)
    .optional(),
});

export const FeedbackBody = z.object({
  status: z.enum(['like', 'dislike'], { message: 'must be like, dislike or null' }).nullable(),
});

/** The activities cursor: opaque to clients, passed back unchanged. */
export const ListActivitiesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100, 'must be at most 100').default(50),
  before: z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a cursor from a previous page')
    .optional(),
});

export const TaskParams = z.object({ taskId: z.string().min(1).max(100) });

const Alarm = z.object({ wakeAt: z.string(), headline: z.string().nullable(), status: z.enum(alarmStatuses) });

export const TaskResponse = z.object({
  id: z.string(),
  type: z.literal('task'),
  title: z.string(),
  description: z.string(),
  status: z
    .enum(taskStatuses)
    .describe(
      'See spec 2, Task statuses. `paused` is set by PUT or by the system (then `systemHold` says why); `message_received` is a conversation whose new message is not read yet (the account is frozen); `abandoned` is a failure left untouched for STEWARD_TASK_ABANDON_DAYS (30). A process call reopens message_received and abandoned.',
    ),
  owner: z.string(),
  ownerId: z.string(),
  assistant: z.string(),
  parentTask: z.string().nullable(),
  modelTier: Tier,
  createdBy: z.enum(['user', 'agent']),
  tags: z.array(z.string()).describe('Labels Steward sets: a workflow’s tasks carry `workflow:<skillId>`'),
  proposalStatus: z.enum(['pending_user_approval', 'approved', 'declined']).nullable(),
  summary: z.string().nullable(),
  plan: z.array(z.object({ title: z.string(), status: z.enum(planItemStatuses) })),
  waitingOnContacts: z.array(
    z.object({
      email: z.string().nullable(),
      name: z.string().nullable(),
      contactId: z.string().nullable(),
      phone: z.string().nullable().optional(),
      slackUserId: z.string().nullable().optional(),
      teamsUserId: z.string().nullable().optional(),
      telegramUserId: z.string().nullable().optional(),
    }),
  ),
  alarm: Alarm.nullable(),
  /** Null until the approvals area stages carts. */
  pendingCart: z
    .object({ id: z.string(), status: z.enum(['pending_approval', 'time_boxed']), contentHash: z.string(), dispatchCount: z.number().int(), timeBoxedExpiresAt: z.string().nullable() })
    .nullable(),
  approvalMode: ApprovalMode.nullable(),
  handledBy: z.string().nullable(),
  systemHold: z
    .enum(systemHolds)
    .nullable()
    .describe('Why the system holds the task (status paused): `owner_inactive`, its owner is suspended or deactivated; it runs again once they are active. Null for a pause the user set.'),
  scheduledFor: z.string().nullable(),
  completedAt: z.string().nullable(),
  readyForReview: z.boolean(),
  feedback: z.enum(['like', 'dislike']).nullable(),
  skills: z.array(z.string()),
  followers: z.array(z.string()),
  onBehalfOf: z.string(),
  tainted: z
    .boolean()
    .describe(
      'True once untrusted content reached one of its runs (mail, a web page, a document, an MCP result, another person’s message, an external trigger), or the task was created by a tainted one. From then on its dispatches to anyone but the owner wait for approval whatever the autonomy settings say, and the tasks it creates are proposals. Never cleared.',
    ),
  taintSources: z
    .array(z.object({ kind: z.enum(taintKinds), ref: z.string().describe('The sender, URL, file, tool or trigger') }))
    .describe('Where the untrusted content came from, oldest first (at most 20)'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ActivityResponse = z.object({
  id: z.string(),
  type: z.enum(['message', 'tool_call']),
  createdAt: z.string(),
  message: z
    .object({
      role: z
        .enum(activityKinds)
        .describe(
          'user, assistant, peer (another assistant), contact (a person outside the user, such as an email reply to the assistant: untrusted content), event (what an external trigger fired the task with: untrusted content; platform names it) or system (Steward’s own note: the task read untrusted content, a limit was reached, a message could not be verified)',
        ),
      content: z.string(),
      platform: z.string().nullable(),
    })
    .nullable(),
  deliveryState: z.enum(deliveryStates).nullable(),
  files: z.array(z.object({ fileId: z.string() })),
  runId: z.string().nullable(),
  toolCall: z.object({ name: z.string(), callId: z.string().nullable(), input: z.unknown(), output: z.unknown() }).nullable(),
});

const ApprovalLock = z.object({ actionType: z.string(), mode: z.string().nullable(), source: z.enum(['account', 'org', 'team']) });

export const TaskEnvelope = z.object({ ok: z.literal(true), task: TaskResponse });
export const TaskDetailEnvelope = z.object({
  ok: z.literal(true),
  task: TaskResponse.extend({
    recentActivity: z.array(ActivityResponse),
    effectiveApprovalMode: ApprovalMode.nullable(),
    approvalLocks: z.array(ApprovalLock),
  }),
});
export const ListTasksResponse = z.object({ ok: z.literal(true), tasks: z.array(TaskResponse), page: z.number().int(), perPage: z.number().int() });
export const DeletedTaskResponse = z.object({ ok: z.literal(true), task: z.object({ id: z.string() }) });
export const ProcessResponse = z.object({
  ok: z.literal(true),
  process: z.object({ success: z.boolean(), taskId: z.string(), executionId: z.string().nullable(), message: z.string().optional() }),
});
export const FeedbackResponse = z.object({
  ok: z.literal(true),
  feedback: z.object({ success: z.boolean(), taskId: z.string(), status: z.enum(['like', 'dislike']).nullable(), message: z.string() }),
});
export const ListActivitiesResponse = z.object({ ok: z.literal(true), activities: z.array(ActivityResponse), hasMore: z.boolean(), cursor: z.string().nullable() });

/** approve / decline: the optional reason goes into the task conversation. */
export const ApprovalBody = z.object({
  reason: z.string().max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`).optional(),
});

/** The spec's limit on one approve-batch. */
export const MAX_APPROVE_BATCH = 100;

export const ApproveBatchBody = z.object({
  taskIds: z
    .array(z.string().min(1).max(100))
    .min(1, 'must name at least one task')
    .max(MAX_APPROVE_BATCH, `must name at most ${MAX_APPROVE_BATCH} tasks`),
});

export const ApproveBatchResponse = z.object({
  ok: z.literal(true),
  batch: z.object({
    approved: z.array(z.string()),
    failed: z.array(z.object({ taskId: z.string(), error: z.string(), errorCode: z.string() })),
  }),
});

const TokenTotals = z.object({
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cacheReadTokens: z.number().int(),
  cacheCreationTokens: z.number().int(),
});

export const TaskUsageResponse = z.object({
  ok: z.literal(true),
  /** Phone time of the calls the task placed (issue 48): ended calls, seconds, minutes rounded up per call. */
  calls: z.object({ calls: z.number().int(), seconds: z.number().int(), minutes: z.number().int() }),
  total: TokenTotals,
  /** One row per model step of each run, oldest run first. */
  rows: z.array(
    TokenTotals.extend({
      runId: z.string(),
      seq: z.number().int(),
      modelTier: Tier,
      model: z.string().nullable(),
      chargedCredits: z.number(),
      isBillable: z.boolean(),
      createdAt: z.string(),
    }),
  ),
  credits: z.object({
    total: z.number(),
    runs: z.array(z.object({ runId: z.string(), chargedCredits: z.number(), isBillable: z.boolean(), createdAt: z.string() })),
  }),
});
