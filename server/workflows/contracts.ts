import { z } from 'zod';
import { mcpAuthTypes, mcpTransports, overflowBehaviors, scheduleTypes, skillApplies, skillKinds } from '@/db/schema/skills';
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

const Applies = z.enum(skillApplies, { message: `must be one of ${skillApplies.join(', ')}` });
/** A prompt's variables as the skill fills them: name → value (a variable left out keeps its default). */
const PromptVariables = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name'), z.string().max(10_000));

/**
 * Instructions: text a run's context gets when the skill applies (`always`: every run of its
 * users; `when_named`: tasks whose `skills[]` name it by name or id). Default `always`.
 */
export const CreateInstructionsBody = z.object({
  kind: z.literal('instructions'),
  name: Slug,
  title: z.string().trim().min(1).max(200).optional(),
  description: z.string().trim().max(5_000).optional(),
  instructions: z.string().trim().min(1, 'is required').max(20_000),
  applies: Applies.optional(),
  enabled: z.boolean().optional(),
});

/** A prompt of the tenant prompt API (by name; a published version, else the latest published one), rendered with its variables. */
export const CreatePromptSkillBody = z.object({
  kind: z.literal('prompt'),
  name: Slug,
  title: z.string().trim().min(1).max(200).optional(),
  description: z.string().trim().max(5_000).optional(),
  promptName: z.string().trim().min(1, 'is required').max(200),
  promptVersion: z.number().int().min(1).nullable().optional(),
  variables: PromptVariables.optional(),
  applies: Applies.optional(),
  enabled: z.boolean().optional(),
});

/**
 * The account's browser skill (spec 2: browser automation needs it installed on the account):
 * name `browser`, title "Workspace browser"; one per account, installed with an account key alone.
 */
export const CreateBrowserBody = z.object({ kind: z.literal('browser') });

export const CreateSkillBody = z.discriminatedUnion('kind', [CreateWorkflowBody, CreateMcpBody, CreateInstructionsBody, CreatePromptSkillBody, CreateBrowserBody], {
  error: `kind must be one of ${skillKinds.join(', ')}`,
});

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
    applies: Applies.optional(),
    promptName: z.string().trim().min(1).max(200).optional(),
    promptVersion: z.number().int().min(1).nullable().optional(),
    variables: PromptVariables.optional(),
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
  applies: z.enum(skillApplies).nullable().describe('Instructions and prompt skills: `always`, or `when_named` (tasks whose skills[] name it)'),
  prompt: z
    .object({ name: z.string(), version: z.number().int().nullable().describe('null: the latest published version'), variables: z.record(z.string(), z.string()) })
    .nullable(),
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
