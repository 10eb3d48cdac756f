import { z } from 'zod';
import { PageFields, PageQuery } from '@/server/http/pagination';

const IsoDate = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }).or(z.iso.date({ message: 'must be an ISO 8601 date' }));

const memoryFields = {
  tags: z.array(z.string().max(300)).max(50),
  scope: z.enum(['user', 'team']),
  team: z.string().min(1).nullable(),
  startDate: IsoDate.nullable(),
  endDate: IsoDate.nullable(),
  metadata: z.record(z.string(), z.unknown()),
  kind: z.enum(['unstructured', 'structured']),
  resourceType: z.string().max(100).nullable(),
  data: z.record(z.string(), z.unknown()).nullable(),
  pinned: z.boolean(),
  visibility: z.enum(['author_only', 'coordinators', 'all']),
};

export const CreateMemoryBody = z.object({
  content: z.string().min(1, 'is required').max(100_000),
  ...Object.fromEntries(Object.entries(memoryFields).map(([k, v]) => [k, v.optional()])),
}) as z.ZodObject<{ content: z.ZodString } & { [K in keyof typeof memoryFields]: z.ZodOptional<(typeof memoryFields)[K]> }>;

export const UpdateMemoryBody = z.object({
  content: z.string().min(1).max(100_000).optional(),
  ...Object.fromEntries(Object.entries(memoryFields).map(([k, v]) => [k, v.optional()])),
}) as z.ZodObject<{ content: z.ZodOptional<z.ZodString> } & { [K in keyof typeof memoryFields]: z.ZodOptional<(typeof memoryFields)[K]> }>;

export const ListMemoriesQuery = PageQuery.extend({
  tags: z.string().max(2000).optional(),
  type: z.string().max(100).optional(),
  search: z.string().max(500).optional(),
  scope: z.enum(['user', 'team']).optional(),
  contactEmail: z.string().max(300).optional(),
  companyId: z.string().max(100).optional(),
});

export const MemoryResponse = z.object({
  id: z.string(),
  account: z.string(),
  user: z.string(),
  kind: z.enum(['unstructured', 'structured']),
  resourceType: z.string().nullable(),
  tags: z.array(z.string()).min(1),
  content: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).nullable(),
  source: z.enum(['system', 'user']),
  scope: z.enum(['user', 'team']),
  visibility: z.enum(['author_only', 'coordinators', 'all']),
  authoredBy: z.string().nullable(),
  assistant: z.string().nullable(),
  team: z.string().nullable(),
  startDate: z.string().nullable(),
  endDate: z.string().nullable(),
  isActive: z.boolean(),
  isExpired: z.boolean(),
  pinned: z.boolean(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const MemoryEnvelope = z.object({ ok: z.literal(true), memory: MemoryResponse });
export const ListMemoriesResponse = z.object({ ok: z.literal(true), memories: z.array(MemoryResponse), ...PageFields });
export const DeletedMemoryResponse = z.object({
  ok: z.literal(true),
  memory: z.object({ id: z.string(), deleted: z.literal(true), message: z.string() }),
});
export const MemoryParams = z.object({ memoryId: z.string().min(1) });

/** GET /memories/search (spec 6, Recall): ranked, best first; a limit above 100 is capped, as perPage is. */
export const SearchMemoriesQuery = z.object({
  q: z.string().trim().min(1, 'is required').max(500),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .transform((n) => Math.min(n, 100)),
});
export const ScoredMemory = MemoryResponse.extend({ score: z.number() });
export const SearchMemoriesResponse = z.object({ ok: z.literal(true), memories: z.array(ScoredMemory) });
