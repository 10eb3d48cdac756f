import { z } from 'zod';
import { mcpAuthTypes, mcpTransports, overflowBehaviors, scheduleTypes, skillKinds } from '@/db/schema/skills';
import { PageFields, PageQuery } from '@/server/http/pagination';
import { Trigger } from './triggers/contracts';

/* Requests and answers of the skills API (spec document 2: Skills, workflows and model tiers). */

const Slug = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be a slug: lower-case letters, digits, - and _, at most 63 characters');

const Limits = {
  maxRuns: z.number().int().min(1).max(1_000_000).nullable().optional(),
  recurrenceEndsAt: z.iso.datetime({ offset: true }).nullable().optional(),
  maxConcurrent: z.number().int().min(1).max(1_000).nullable().optional(),
  cooldownMs: z.number().int().min(0).max(31 * 24 * 3_600_000).nullable().optional(),
  overflowBehavior: z.enum(overflowBehaviors).optional(),
};

export const CreateWorkflowBody = z.object({
  kind: z.literal('workflow'),
  name: Slug,
  title: z.string().trim().min(1, 'is required').max(200),
  description: z.string().trim().min(1, 'is required').max(5_000),
  instructions: z.string().max(20_000).optional(),
  triggers: z.array(Trigger).min(1, 'at least one trigger').max(20),
  scheduleType: z.enum(scheduleTypes).optional(),
  enabled: z.boolean().optional(),
  ...Limits,
});

export const CreateMcpBody = z.object({
  kind: z.literal('mcp'),
  mcpServerUrl: z.string().trim().min(1, 'is required').max(2_048),
  mcpTransport: z.enum(mcpTransports).default('streamable-http'),
  mcpAuthType: z.enum(mcpAuthTypes).default('none'),
  /** With `mcpAuthType: api_key`: sent as a Bearer token, sealed at rest, never shown again. */
  mcpApiKey: z.string().min(1).max(4_096).optional(),
  name: Slug.optional(),
  title: z.string().trim().min(1).max(200).optional(),
  description: z.string().trim().max(5_000).optional(),
  enabled: z.boolean().optional(),
});

export const CreateSkillBody = z.discriminatedUnion('kind', [CreateWorkflowBody, CreateMcpBody], { error: `kind must be one of ${skillKinds.join(', ')}` });

export const UpdateSkillBody = z
  .object({
    title: z.string().trim().min(1).max(200).optional(),
    description: z.string().trim().max(5_000).optional(),
    instructions: z.string().max(20_000).nullable().optional(),
    triggers: z.array(Trigger).min(1).max(20).optional(),
    scheduleType: z.enum(scheduleTypes).optional(),
    enabled: z.boolean().optional(),
    mcpServerUrl: z.string().trim().min(1).max(2_048).optional(),
    mcpApiKey: z.string().min(1).max(4_096).optional(),
    ...Limits,
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'Give at least one field to change' });

export const SkillParams = z.object({ skillId: z.string().trim().min(1).max(64) });
export const ListSkillsQuery = PageQuery.extend({ kind: z.enum(skillKinds).optional() });

export const Skill = z.object({
  id: z.string(),
  kind: z.enum(skillKinds),
  name: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  scope: z.enum(['user', 'account']).describe('`user`: installed for its owner; `account`: for every user of the account'),
  ownerUserId: z.string().nullable(),
  enabled: z.boolean(),
  instructions: z.string().nullable(),
  triggers: z.array(z.record(z.string(), z.unknown())),
  scheduleType: z.enum(scheduleTypes).nullable(),
  maxRuns: z.number().nullable(),
  recurrenceEndsAt: z.string().nullable(),
  maxConcurrent: z.number().nullable(),
  cooldownMs: z.number().nullable(),
  overflowBehavior: z.enum(overflowBehaviors),
  runCount: z.number(),
  lastFiredAt: z.string().nullable(),
  mcp: z
    .object({
      serverUrl: z.string(),
      transport: z.enum(mcpTransports),
      authType: z.enum(mcpAuthTypes),
      serverName: z.string().nullable(),
      authorizationRequired: z.boolean(),
      tools: z.array(z.object({ name: z.string().describe('The agent tool: mcp__<skill>__<tool>'), tool: z.string(), description: z.string(), readOnly: z.boolean() })),
    })
    .nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const SkillEnvelope = z.object({ ok: z.literal(true), skill: Skill });
export const SkillList = z.object({ ok: z.literal(true), skills: z.array(Skill), ...PageFields });
export const DeletedSkill = z.object({ ok: z.literal(true), skill: z.object({ id: z.string(), deleted: z.literal(true) }) });
