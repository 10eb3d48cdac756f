import { z } from 'zod';
import { PageQuery, pageWindow } from '@/server/http/pagination';

const Name = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(100)
  .regex(/^[a-z][a-z0-9_]*$/, 'must be lowercase letters, digits and underscores, starting with a letter');
export const PromptName = Name;
export const BlockName = Name;

const Meta = z.record(z.string(), z.unknown()).default({});
/** Ids are assigned by the server; a sent id that names an existing item keeps it. */
const Id = z.string().max(64).optional();

export const ChunkInput = z.object({
  id: Id,
  content: z.string().max(100_000),
  order: z.number().int().optional(),
  comments: z.array(z.unknown()).default([]),
  metadata: Meta,
});
export const ToolDefInput = z.object({
  id: Id,
  name: z.string().min(1).max(200),
  description: z.string().max(10_000).default(''),
  parameters: z
    .object({
      type: z.literal('object'),
      properties: z.record(z.string(), z.unknown()).default({}),
      required: z.array(z.string()).default([]),
    })
    .passthrough()
    .default({ type: 'object', properties: {}, required: [] }),
  metadata: Meta,
});
export const VariableInput = z.object({
  id: Id,
  name: z.string().min(1).max(200).regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier (letters, digits, underscores)'),
  type: z.string().min(1).max(50).default('string'),
  required: z.boolean().default(false),
  description: z.string().max(10_000).default(''),
  metadata: Meta,
});
export const ModelInput = z.object({
  id: Id,
  provider: z.string().min(1).max(100),
  name: z.string().min(1).max(200),
  metadata: Meta,
});

const contentFields = {
  enabled: z.boolean().optional(),
  systemChunks: z.array(ChunkInput).max(500).optional(),
  userChunks: z.array(ChunkInput).max(500).optional(),
  toolDefs: z.array(ToolDefInput).max(500).optional(),
  variables: z.array(VariableInput).max(500).optional(),
  models: z.array(ModelInput).max(100).optional(),
};

export const CreatePromptBody = z.object({
  promptName: PromptName,
  category: z.string().trim().min(1, 'is required').max(200),
  description: z.string().trim().min(1, 'is required').max(10_000),
  multiStep: z.boolean().optional(),
  scenarios: z.array(z.unknown()).max(500).optional(),
  modelSampling: z.boolean().optional(),
  ...contentFields,
});

export const UpdatePromptBody = z.object({
  category: z.string().trim().min(1).max(200).optional(),
  description: z.string().trim().min(1).max(10_000).optional(),
  multiStep: z.boolean().optional(),
  scenarios: z.array(z.unknown()).max(500).optional(),
  modelSampling: z.boolean().optional(),
  skillset: z.array(z.unknown()).max(500).optional(),
  allowedActions: z.array(z.unknown()).max(500).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  ...contentFields,
});

/**
 * The tenant API's pagination: `per_page` (default 20, capped at 100) and `has_more`. Only the
 * spelling differs from the rest of the API, so the fields are the kernel's own (PageQuery).
 */
export const TenantPageQuery = z.object({ page: PageQuery.shape.page, per_page: PageQuery.shape.perPage });
export type TenantPageQuery = z.infer<typeof TenantPageQuery>;
export const tenantPage = <T>(q: TenantPageQuery, rows: T[]) => ({
  data: rows.slice(0, q.per_page),
  page: q.page,
  per_page: q.per_page,
  has_more: rows.length > q.per_page,
});
/** Fetch one extra row to know whether there is a next page. */
export const tenantWindow = (q: TenantPageQuery) => {
  const { limit, offset } = pageWindow({ page: q.page, perPage: q.per_page });
  return { limit: limit + 1, offset };
};

const BoolString = z
  .enum(['true', 'false'])
  .transform((v) => v === 'true')
  .optional();
export const ListPromptsQuery = TenantPageQuery.extend({ multiStep: BoolString });

export const TenantParams = z.object({ tenantId: z.string().min(1) });
export const PromptParams = TenantParams.extend({ promptName: z.string().min(1) });
export const VersionParams = PromptParams.extend({ versionNumber: z.string().regex(/^\d+$/, 'must be a version number') });
export const BlockParams = TenantParams.extend({ blockName: z.string().min(1) });
export const TraceParams = TenantParams.extend({ traceId: z.string().min(1) });

const Chunk = z.object({ id: z.string(), content: z.string(), order: z.number(), comments: z.array(z.unknown()), metadata: z.record(z.string(), z.unknown()) });
const ToolDef = z.object({ id: z.string(), name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()), metadata: z.record(z.string(), z.unknown()) });
const Variable = z.object({ id: z.string(), name: z.string(), type: z.string(), required: z.boolean(), description: z.string(), metadata: z.record(z.string(), z.unknown()) });
const Model = z.object({ id: z.string(), provider: z.string(), name: z.string(), metadata: z.record(z.string(), z.unknown()) });

/** Stored shapes: what the input schemas produce once the server assigned ids and order. */
export type StoredChunk = z.infer<typeof Chunk>;
export type StoredToolDef = z.infer<typeof ToolDef>;
export type StoredVariable = z.infer<typeof Variable>;
export type StoredModel = z.infer<typeof Model>;

export const PromptSummary = z.object({
  tenantId: z.string(),
  promptName: z.string(),
  category: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  multiStep: z.boolean(),
  models: z.array(Model),
  modelSampling: z.boolean(),
  etag: z.string(),
  publishedEtag: z.string().nullable(),
  publishedVersion: z.string().nullable(),
  hasUnpublishedChanges: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const PromptDetail = PromptSummary.extend({
  systemChunks: z.array(Chunk),
  userChunks: z.array(Chunk),
  toolDefs: z.array(ToolDef),
  variables: z.array(Variable),
  scenarios: z.array(z.unknown()),
  blocks: z.array(z.string()),
  skillset: z.array(z.unknown()),
  allowedActions: z.array(z.unknown()),
  metadata: z.record(z.string(), z.unknown()),
  renderedSystemPrompt: z.string(),
});

export const ListPromptsResponse = z.object({ data: z.array(PromptSummary), page: z.number(), per_page: z.number(), has_more: z.boolean() });
export const PromptEnvelope = z.object({ data: PromptDetail });
export const CreatePromptResponse = z.object({
  data: z.object({ tenantId: z.string(), promptName: z.string(), category: z.string(), description: z.string(), enabled: z.boolean(), etag: z.string(), createdAt: z.string() }),
});
export const UpdatePromptResponse = z.object({
  data: z.object({ tenantId: z.string(), promptName: z.string(), etag: z.string(), hasUnpublishedChanges: z.boolean(), updatedAt: z.string() }),
});
export const PublishResponse = z.object({
  data: z.object({
    tenantId: z.string(),
    promptName: z.string(),
    publishedVersion: z.string(),
    publishedEtag: z.string(),
    hasUnpublishedChanges: z.boolean(),
    updatedAt: z.string(),
  }),
});
export const MessageResponse = z.object({ message: z.string() });
export const VersionItem = z.object({ versionNumber: z.string(), etag: z.string(), createdAt: z.string() });
export const ListVersionsResponse = z.object({ data: z.array(VersionItem), page: z.number(), per_page: z.number(), has_more: z.boolean() });
export const BlockSnapshot = z.object({ blockName: z.string(), content: z.string(), description: z.string() });
export const VersionEnvelope = z.object({
  data: VersionItem.extend({
    tenantId: z.string(),
    promptName: z.string(),
    category: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    systemChunks: z.array(Chunk),
    userChunks: z.array(Chunk),
    toolDefs: z.array(ToolDef),
    variables: z.array(Variable),
    blocks: z.array(BlockSnapshot),
    models: z.array(Model),
  }),
});
