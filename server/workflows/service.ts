import { and, count, desc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { skills, type SkillRow } from '@/db/schema/skills';
import type { Actor } from '@/server/access/actor';
import { AppError, badRequest } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import { changeableSkill, readableSkill, skillOwnerFor, visibleSkills } from './access';
import { installBrowserSkill } from './browser-skill';
import type { CreateInstructionsBody, CreateMcpBody, CreatePromptSkillBody, CreateSkillBody, CreateWorkflowBody, ListSkillsQuery, UpdateSkillBody } from './contracts';
import { publishedVersion } from '@/server/prompts/render-version';
import { probeMcpServer, type McpServerInfo } from './mcp/probe';
import { openMcpSecret, sealMcpSecret } from './mcp/secret';
import { presentSkill } from './present';
import { inferScheduleType } from './triggers/contracts';
import { syncTriggerState } from './triggers/sync';

const slugify = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63) || 'mcp-server';

const taken = (name: string) => new AppError(409, 'skill_name_taken', `A skill named ${name} already exists here; choose another name`, { field: 'name' });

const isUniqueViolation = (e: unknown) => (e as { code?: string; cause?: { code?: string } })?.code === '23505' || (e as { cause?: { code?: string } })?.cause?.code === '23505';

async function insertSkill(db: Db, values: typeof skills.$inferInsert): Promise<SkillRow> {
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx.insert(skills).values(values).returning();
      await syncTriggerState(tx, row);
      return row;
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw taken(values.name);
    throw e;
  }
}

/** An MCP server must answer before it is installed: its initialize answer names the skill when the caller did not. */
async function probe(input: { url: string; transport: SkillRow['mcpTransport']; authType: SkillRow['mcpAuthType']; apiKey?: string | null }): Promise<McpServerInfo> {
  if (input.authType === 'api_key' && !input.apiKey) throw badRequest('mcpApiKey: required with mcpAuthType api_key', { field: 'mcpApiKey' });
  return probeMcpServer({ url: input.url, transport: input.transport ?? 'streamable-http', authType: input.authType ?? 'none', apiKey: input.apiKey ?? null });
}

async function createMcp(db: Db, actor: Actor, owner: string | null, input: z.infer<typeof CreateMcpBody>) {
  const info = await probe({ url: input.mcpServerUrl, transport: input.mcpTransport, authType: input.mcpAuthType, apiKey: input.mcpApiKey });
  const name = input.name ?? slugify(info.name);
  return insertSkill(db, {
    accountId: actor.accountId,
    ownerUserId: owner,
    kind: 'mcp',
    name,
    title: input.title ?? info.title ?? info.name,
    description: input.description ?? info.description ?? null,
    enabled: input.enabled ?? true,
    mcpServerUrl: input.mcpServerUrl,
    mcpTransport: input.mcpTransport,
    mcpAuthType: input.mcpAuthType,
    mcpSecretSealed: input.mcpApiKey ? await sealMcpSecret(db, { apiKey: input.mcpApiKey }) : null,
    mcpServerInfo: info,
  });
}

async function createWorkflow(db: Db, actor: Actor, owner: string | null, input: z.infer<typeof CreateWorkflowBody>) {
  return insertSkill(db, {
    accountId: actor.accountId,
    ownerUserId: owner,
    kind: 'workflow',
    name: input.name,
    title: input.title,
    description: input.description,
    instructions: input.instructions ?? null,
    triggers: input.triggers as Record<string, unknown>[],
    scheduleType: input.scheduleType ?? inferScheduleType(input.triggers),
    enabled: input.enabled ?? true,
    maxRuns: input.maxRuns ?? null,
    recurrenceEndsAt: input.recurrenceEndsAt ? new Date(input.recurrenceEndsAt) : null,
    maxConcurrent: input.maxConcurrent ?? null,
    cooldownMs: input.cooldownMs ?? null,
    overflowBehavior: input.overflowBehavior ?? 'queue',
  });
}

async function createInstructions(db: Db, actor: Actor, owner: string | null, input: z.infer<typeof CreateInstructionsBody>) {
  return insertSkill(db, {
    accountId: actor.accountId,
    ownerUserId: owner,
    kind: 'instructions',
    name: input.name,
    title: input.title ?? null,
    description: input.description ?? null,
    instructions: input.instructions,
    applies: input.applies ?? 'always',
    enabled: input.enabled ?? true,
  });
}

/** The account's tenant prompt must exist with a published version (the one named, or any): 400 naming the field otherwise. */
async function assertPublished(db: Db, accountId: string, promptName: string, version: number | null) {
  if (await publishedVersion(db, accountId, promptName, version)) return;
  if (version !== null) throw badRequest(`promptVersion: ${promptName} has no published version ${version}`, { field: 'promptVersion' });
  throw badRequest(`promptName: no published prompt named ${promptName} in this account's prompt API`, { field: 'promptName' });
}

async function createPromptSkill(db: Db, actor: Actor, owner: string | null, input: z.infer<typeof CreatePromptSkillBody>) {
  await assertPublished(db, actor.accountId, input.promptName, input.promptVersion ?? null);
  return insertSkill(db, {
    accountId: actor.accountId,
    ownerUserId: owner,
    kind: 'prompt',
    name: input.name,
    title: input.title ?? input.promptName,
    description: input.description ?? null,
    promptName: input.promptName,
    promptVersion: input.promptVersion ?? null,
    promptVariables: input.variables ?? {},
    applies: input.applies ?? 'always',
    enabled: input.enabled ?? true,
  });
}

/**
 * POST /skills: with X-User-Email (or a user key) the skill is the user's; with an account key
 * alone, the whole account's. The browser skill is always the account's (browser-skill.ts);
 * `created` is false when it was installed already.
 */
export async function createSkill(db: Db, actor: Actor, input: z.infer<typeof CreateSkillBody>) {
  if (input.kind === 'browser') {
    const { row, created } = await installBrowserSkill(db, actor);
    return { ok: true as const, skill: presentSkill(row), created };
  }
  const owner = skillOwnerFor(actor);
  const row =
    input.kind === 'mcp'
      ? await createMcp(db, actor, owner, input)
      : input.kind === 'instructions'
        ? await createInstructions(db, actor, owner, input)
        : input.kind === 'prompt'
          ? await createPromptSkill(db, actor, owner, input)
          : await createWorkflow(db, actor, owner, input);
  return { ok: true as const, skill: presentSkill(row), created: true };
}

export async function listSkills(db: Db, actor: Actor, q: z.infer<typeof ListSkillsQuery>) {
  const where = and(visibleSkills(actor), q.kind ? eq(skills.kind, q.kind) : undefined);
  const { limit, offset } = pageWindow(q);
  const [rows, [{ n }]] = await Promise.all([
    db.select().from(skills).where(where).orderBy(desc(skills.createdAt), desc(skills.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(skills).where(where),
  ]);
  return { ok: true as const, skills: rows.map(presentSkill), ...pageInfo(q, n) };
}

export async function getSkill(db: Db, actor: Actor, skillId: string) {
  return { ok: true as const, skill: presentSkill(await readableSkill(db, actor, skillId)) };
}

export async function updateSkill(db: Db, actor: Actor, skillId: string, input: z.infer<typeof UpdateSkillBody>) {
  const row = await changeableSkill(db, actor, skillId);
  if (row.kind === 'browser') {
    const other = Object.keys(input).filter((k) => !['title', 'description', 'enabled'].includes(k));
    if (other.length) throw badRequest(`${other.join(', ')}: the browser skill changes only title, description and enabled`, { field: other[0] });
  }
  const set: Partial<typeof skills.$inferInsert> = {};
  for (const k of ['title', 'description', 'instructions', 'enabled', 'maxRuns', 'maxConcurrent', 'cooldownMs', 'overflowBehavior', 'scheduleType'] as const) {
    if (input[k] !== undefined) (set as Record<string, unknown>)[k] = input[k];
  }
  if (input.recurrenceEndsAt !== undefined) set.recurrenceEndsAt = input.recurrenceEndsAt ? new Date(input.recurrenceEndsAt) : null;
  const contextKind = row.kind === 'instructions' || row.kind === 'prompt';
  if (!contextKind && input.applies !== undefined) throw badRequest('applies: only for instructions and prompt skills', { field: 'applies' });
  if (row.kind !== 'prompt' && (input.promptName !== undefined || input.promptVersion !== undefined || input.variables !== undefined)) {
    throw badRequest('promptName, promptVersion, variables: only for prompt skills', { field: 'promptName' });
  }
  if (input.applies !== undefined) set.applies = input.applies;
  if (contextKind) {
    if (input.triggers) throw badRequest('triggers: only for workflows', { field: 'triggers' });
    if (input.mcpServerUrl !== undefined || input.mcpApiKey !== undefined) throw badRequest('mcpServerUrl, mcpApiKey: only for MCP skills', { field: 'mcpServerUrl' });
    if (row.kind === 'instructions' && input.instructions === null) throw badRequest('instructions: an instructions skill needs its text', { field: 'instructions' });
    if (row.kind === 'prompt' && (input.promptName !== undefined || input.promptVersion !== undefined)) {
      const name = input.promptName ?? row.promptName!;
      const version = input.promptVersion === undefined ? row.promptVersion : input.promptVersion;
      await assertPublished(db, row.accountId, name, version);
      set.promptName = name;
      set.promptVersion = version;
    }
    if (input.variables !== undefined) set.promptVariables = input.variables;
  } else if (row.kind === 'workflow') {
    if (input.mcpServerUrl !== undefined || input.mcpApiKey !== undefined) throw badRequest('mcpServerUrl, mcpApiKey: only for MCP skills', { field: 'mcpServerUrl' });
    if (input.triggers) {
      set.triggers = input.triggers as Record<string, unknown>[];
      if (!input.scheduleType) set.scheduleType = inferScheduleType(input.triggers);
    }
  } else {
    if (input.triggers) throw badRequest('triggers: only for workflows', { field: 'triggers' });
    // A new address or key is probed again before it replaces the working one.
    if (input.mcpServerUrl !== undefined || input.mcpApiKey !== undefined) {
      const secret = await openMcpSecret(db, row.mcpSecretSealed);
      const url = input.mcpServerUrl ?? row.mcpServerUrl!;
      const apiKey = input.mcpApiKey ?? secret.apiKey ?? null;
      set.mcpServerInfo = await probe({ url, transport: row.mcpTransport, authType: row.mcpAuthType, apiKey });
      set.mcpServerUrl = url;
      if (input.mcpApiKey) set.mcpSecretSealed = await sealMcpSecret(db, { ...secret, apiKey: input.mcpApiKey });
    }
  }
  const updated = await db.transaction(async (tx) => {
    const [u] = await tx.update(skills).set(set).where(eq(skills.id, row.id)).returning();
    await syncTriggerState(tx, u);
    return u;
  });
  return { ok: true as const, skill: presentSkill(updated) };
}

export async function deleteSkill(db: Db, actor: Actor, skillId: string) {
  const row = await changeableSkill(db, actor, skillId);
  // Its firings and trigger state go with it (cascade); tasks it created stay the user's.
  await db.delete(skills).where(eq(skills.id, row.id));
  return { ok: true as const, skill: { id: row.id, deleted: true as const } };
}
