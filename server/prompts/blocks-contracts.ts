import { z } from 'zod';
import { BlockName, TenantPageQuery } from './contracts';

export const CreateBlockBody = z.object({
  blockName: BlockName,
  content: z.string().min(1, 'is required').max(200_000),
  description: z.string().trim().min(1, 'is required').max(10_000),
});
export const UpdateBlockBody = z.object({
  content: z.string().min(1).max(200_000).optional(),
  description: z.string().trim().min(1).max(10_000).optional(),
});
export const ListBlocksQuery = TenantPageQuery.extend({ search: z.string().max(200).optional() });

const BlockSummary = z.object({
  blockName: z.string(),
  description: z.string(),
  usedByPrompts: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const ListBlocksResponse = z.object({ data: z.array(BlockSummary), page: z.number(), per_page: z.number(), has_more: z.boolean() });
export const BlockEnvelope = z.object({ data: BlockSummary.extend({ content: z.string() }) });
export const CreateBlockResponse = z.object({ data: BlockSummary.omit({ updatedAt: true }) });
export const UpdateBlockResponse = z.object({ data: BlockSummary.omit({ createdAt: true }).extend({ content: z.string() }) });
