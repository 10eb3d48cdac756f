import { z } from 'zod';

/*
 * Requests and answers of the streaming turn (spec document 2: POST /chats/{chatId}/process,
 * GET /chats/{chatId}/usage; docs/chat-streaming.md: GET /chats/{chatId}/runs/{executionId}/events).
 */

const Id = z.string().trim().min(1, 'is required').max(64);
const Recipients = z.union([z.string().max(320), z.array(z.string().max(320)).max(100)]);

export const ProcessFile = z.object({
  fileId: z.string().regex(/^[0-9a-f]{24}$/, 'must be 24 hex characters'),
  filename: z.string().max(1_000).optional(),
  mimeType: z.string().max(255).optional(),
});

/** The message the turn answers; saved to the chat first, as POST /chats/{chatId}/messages would. */
export const ProcessMessage = z.object({
  content: z.string({ message: 'is required' }).max(100_000),
  from: z.string().max(320).optional(),
  to: Recipients.optional(),
  cc: Recipients.optional(),
  subject: z.string().max(998).optional(),
  platform: z.string().max(64).optional(),
  referenceId: z.string().max(255).optional(),
  files: z.array(ProcessFile).max(20).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const ProcessChatBody = z.object({
  // A bare string is not a message (spec: "A bare string message is ignored").
  message: z.union([ProcessMessage, z.string()]).nullish(),
  triggeringActivityId: Id.optional(),
});

export const ChatParams = z.object({ chatId: Id });
export const TurnParams = z.object({ chatId: Id, executionId: Id });

/** Where a reconnecting client resumes: `lastEventId` here, or the Last-Event-ID header (the query wins). */
export const TurnEventsQuery = z.object({
  lastEventId: z.coerce.number({ message: 'must be an event id (a whole number)' }).int().min(0).optional(),
});

const Tokens = {
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheCreationTokens: z.number(),
  totalTokens: z.number(),
};

/** Phone time of the chat's or task's calls (issue 48): ended calls, seconds, minutes rounded up per call. */
export const CallUsage = z.object({ calls: z.number().int(), seconds: z.number().int(), minutes: z.number().int() });

export const ChatUsageResponse = z.object({
  ok: z.literal(true),
  calls: CallUsage,
  total: z.object({ ...Tokens, runs: z.number(), turns: z.number() }),
  rows: z.array(
    z.object({
      runId: z.string(),
      seq: z.number(),
      modelTier: z.string(),
      model: z.string().nullable(),
      ...Tokens,
      chargedCredits: z.number(),
      isBillable: z.boolean(),
      turns: z.number(),
      startedAt: z.string(),
    }),
  ),
  credits: z.object({
    total: z.number(),
    runs: z.array(z.object({ runId: z.string(), chargedCredits: z.number(), isBillable: z.boolean(), createdAt: z.string() })),
  }),
});
