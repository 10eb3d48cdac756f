import { z } from 'zod';
import { TenantPageQuery } from './contracts';

const Message = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable().default(''),
  tool_calls: z.array(z.object({ id: z.string(), name: z.string(), args: z.unknown() })).optional(),
  tool_call_id: z.string().optional(),
});
const ModelConfig = z
  .object({
    model: z.string(),
    provider: z.string(),
    temperature: z.number().optional(),
    max_tokens: z.number().int().optional(),
  })
  .passthrough();
const Tool = z.object({
  name: z.string(),
  description: z.string().default(''),
  parameters: z.record(z.string(), z.unknown()).default({}),
  metadata: z.record(z.string(), z.unknown()).default({}),
});

/** What the agent runtime records for each model call (recordTrace) and import-trace loads. */
export const TraceInput = z.object({
  traceId: z.string().regex(/^[\w-]{1,64}$/).optional(),
  promptName: z.string().min(1).max(200),
  status: z.string().min(1).max(50).default('completed'),
  tags: z.array(z.string().max(100)).max(50).default([]),
  inputTokens: z.number().int().min(0).default(0),
  outputTokens: z.number().int().min(0).default(0),
  totalTokens: z.number().int().min(0).optional(),
  cost: z.number().min(0).default(0),
  costCurrency: z.string().length(3).default('USD'),
  duration: z.number().min(0).default(0),
  modelConfig: ModelConfig,
  messages: z.array(Message).default([]),
  output: z.object({ message: z.string().nullable(), success: z.boolean() }).nullable().default(null),
  tools: z.array(Tool).default([]),
  toolChoice: z.string().nullable().default(null),
  metadata: z.record(z.string(), z.unknown()).default({}),
  timestamp: z.number().int().optional(),
});
export type TraceInput = z.input<typeof TraceInput>;

export const ListTracesQuery = TenantPageQuery.extend({ search: z.string().max(200).optional() });

const TraceSummary = z.object({
  traceId: z.string(),
  promptName: z.string(),
  status: z.string(),
  tags: z.array(z.string()),
  inputTokens: z.number(),
  outputTokens: z.number(),
  totalTokens: z.number(),
  cost: z.number(),
  duration: z.number(),
  modelConfig: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});
export const ListTracesResponse = z.object({ data: z.array(TraceSummary), page: z.number(), per_page: z.number(), has_more: z.boolean() });
export const TraceDetail = TraceSummary.extend({
  messages: z.array(z.record(z.string(), z.unknown())),
  output: z.object({ message: z.string().nullable(), success: z.boolean() }).nullable(),
  costCurrency: z.string(),
  tools: z.array(z.record(z.string(), z.unknown())),
  toolChoice: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  timestamp: z.number(),
});
