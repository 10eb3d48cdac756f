import { randomBytes } from 'node:crypto';
import { and, desc, eq, inArray, max, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { promptBlocks, promptVersions, prompts, type PromptRow } from '@/db/schema';
import { newId } from '@/db/schema/columns';
import { AppError, conflict, notFound } from '@/server/http/errors';
import type { CreatePromptBody, ListPromptsQuery, StoredChunk, StoredModel, StoredToolDef, StoredVariable, TenantPageQuery, UpdatePromptBody } from './contracts';
import { tenantPage, tenantWindow } from './contracts';
import { orderedChunks, referencedBlocks, renderSystemPrompt } from './render';

type Json = Record<string, unknown>;
type Item = { id?: string } & Json;

const etagFor = (revision: number) => `v${revision}_${randomBytes(4).toString('hex')}`;
const iso = (d: Date) => d.toISOString();

/** Keeps an id the client sent when it names an item of the current draft; assigns one otherwise. */
function withIds<T extends Item>(items: T[] | undefined, current: Json[]): Json[] | undefined {
  if (!items) return undefined;
  const known = new Set(current.map((c) => c.id as string));
  const used = new Set<string>();
  return items.map((item) => {
    const keep = item.id && known.has(item.id) && !used.has(item.id) ? item.id : newId();
    used.add(keep);
    return { ...item, id: keep };
  });
}

/** Chunks get an `order` (their position when not given). */
function withOrder(chunks: Json[] | undefined): Json[] | undefined {
  return chunks?.map((c, i) => ({ ...c, order: typeof c.order === 'number' ? c.order : i }));
}

export async function findPrompt(db: Db, tenantId: string, promptName: string): Promise<PromptRow> {
  const [row] = await db
    .select()
    .from(prompts)
    .where(and(eq(prompts.accountId, tenantId), eq(prompts.promptName, promptName)))
    .limit(1);
  if (!row) throw notFound('Prompt');
  return row;
}

const chunkTexts = (p: Pick<PromptRow, 'systemChunks' | 'userChunks'>) =>
  [...p.systemChunks, ...p.userChunks].map((c) => String(c.content ?? ''));

export const blocksUsedBy = (p: Pick<PromptRow, 'systemChunks' | 'userChunks'>) => referencedBlocks(chunkTexts(p));

const summary = (p: PromptRow) => ({
  tenantId: p.accountId,
  promptName: p.promptName,
  category: p.category,
  description: p.description,
  enabled: p.enabled,
  multiStep: p.multiStep,
  models: p.models as StoredModel[],
  modelSampling: p.modelSampling,
  etag: p.etag,
  publishedEtag: p.publishedEtag,
  publishedVersion: p.publishedVersion === null ? null : String(p.publishedVersion),
  hasUnpublishedChanges: p.hasUnpublishedChanges,
  createdAt: iso(p.createdAt),
  updatedAt: iso(p.updatedAt),
});

/** Blocks referenced by the texts, following references inside blocks a few levels deep. */
async function loadBlocks(db: Db, tenantId: string, texts: string[]) {
  const found = new Map<string, { content: string; description: string }>();
  let wanted = referencedBlocks(texts);
  for (let depth = 0; depth < 5 && wanted.length; depth++) {
    const rows = await db
      .select()
      .from(promptBlocks)
      .where(and(eq(promptBlocks.accountId, tenantId), inArray(promptBlocks.blockName, wanted)));
    for (const r of rows) found.set(r.blockName, { content: r.content, description: r.description });
    wanted = referencedBlocks(rows.map((r) => r.content)).filter((n) => !found.has(n));
  }
  return found;
}

export async function getPrompt(db: Db, tenantId: string, promptName: string) {
  const p = await findPrompt(db, tenantId, promptName);
  const blocks = await loadBlocks(db, tenantId, chunkTexts(p));
  const contents = new Map([...blocks].map(([k, v]) => [k, v.content]));
  return {
    data: {
      ...summary(p),
      systemChunks: orderedChunks(p.systemChunks as StoredChunk[]),
      userChunks: orderedChunks(p.userChunks as StoredChunk[]),
      toolDefs: p.toolDefs as StoredToolDef[],
      variables: p.variables as StoredVariable[],
      scenarios: p.scenarios,
      blocks: blocksUsedBy(p),
      skillset: p.skillset,
      allowedActions: p.allowedActions,
      metadata: p.metadata,
      renderedSystemPrompt: renderSystemPrompt(
        p.systemChunks as Array<{ content: string; order: number }>,
        contents,
        p.variables as Array<{ name: string; metadata?: Json }>,
      ),
    },
  };
}

export async function listPrompts(db: Db, tenantId: string, q: z.infer<typeof ListPromptsQuery>) {
  const { limit, offset } = tenantWindow(q);
  const rows = await db
    .select()
    .from(prompts)
    .where(and(eq(prompts.accountId, tenantId), q.multiStep === undefined ? undefined : eq(prompts.multiStep, q.multiStep)))
    .orderBy(desc(prompts.createdAt), desc(prompts.id))
    .limit(limit)
    .offset(offset);
  return tenantPage(q, rows.map(summary));
}

export async function createPrompt(db: Db, tenantId: string, input: z.infer<typeof CreatePromptBody>) {
  const etag = etagFor(1);
  try {
    const [p] = await db
      .insert(prompts)
      .values({
        accountId: tenantId,
        promptName: input.promptName,
        category: input.category,
        description: input.description,
        enabled: input.enabled ?? true,
        multiStep: input.multiStep ?? false,
        systemChunks: withOrder(withIds(input.systemChunks, [])) ?? [],
        userChunks: withOrder(withIds(input.userChunks, [])) ?? [],
        toolDefs: withIds(input.toolDefs, []) ?? [],
        variables: withIds(input.variables, []) ?? [],
        models: withIds(input.models, []) ?? [],
        scenarios: input.scenarios ?? [],
        modelSampling: input.modelSampling ?? false,
        revision: 1,
        etag,
      })
      .returning();
    return {
      data: {
        tenantId,
        promptName: p.promptName,
        category: p.category,
        description: p.description,
        enabled: p.enabled,
        etag: p.etag,
        createdAt: iso(p.createdAt),
      },
    };
  } catch (e) {
    if ((e as { cause?: { code?: string } }).cause?.code === '23505' || (e as { code?: string }).code === '23505') {
      throw conflict(`promptName: a prompt named ${input.promptName} already exists`);
    }
    throw e;
  }
}

/**
 * Every PATCH makes a new draft (new etag). With If-Match the write applies only while
 * the draft is still the one the caller read, so two editors cannot overwrite each other.
 */
export async function updatePrompt(db: Db, tenantId: string, promptName: string, input: z.infer<typeof UpdatePromptBody>, ifMatch: string | null) {
  return db.transaction(async (tx) => {
    const p = await lockPrompt(tx, tenantId, promptName);
    if (ifMatch !== null && !etagMatches(ifMatch, p.etag)) {
      throw new AppError(412, 'precondition_failed', `The draft changed since you read it: its etag is now ${p.etag}`, { etag: p.etag });
    }
    const revision = p.revision + 1;
    const [u] = await tx
      .update(prompts)
      .set({
        ...changedFields({
          category: input.category,
          description: input.description,
          enabled: input.enabled,
          multiStep: input.multiStep,
          modelSampling: input.modelSampling,
          scenarios: input.scenarios,
          skillset: input.skillset,
          allowedActions: input.allowedActions,
          metadata: input.metadata,
          systemChunks: input.systemChunks ? withOrder(withIds(input.systemChunks, p.systemChunks)) : undefined,
          userChunks: input.userChunks ? withOrder(withIds(input.userChunks, p.userChunks)) : undefined,
          toolDefs: input.toolDefs ? withIds(input.toolDefs, p.toolDefs) : undefined,
          variables: input.variables ? withIds(input.variables, p.variables) : undefined,
          models: input.models ? withIds(input.models, p.models) : undefined,
        }),
        revision,
        etag: etagFor(revision),
        hasUnpublishedChanges: true,
      })
      .where(eq(prompts.id, p.id))
      .returning();
    return { data: { tenantId, promptName, etag: u.etag, hasUnpublishedChanges: true, updatedAt: iso(u.updatedAt) } };
  });
}

/** The prompt's row, locked for the rest of the transaction so concurrent edits and publishes queue up. */
async function lockPrompt(tx: Parameters<Parameters<Db['transaction']>[0]>[0], tenantId: string, promptName: string): Promise<PromptRow> {
  const [p] = await tx
    .select()
    .from(prompts)
    .where(and(eq(prompts.accountId, tenantId), eq(prompts.promptName, promptName)))
    .for('update')
    .limit(1);
  if (!p) throw notFound('Prompt');
  return p;
}

/** If-Match may be quoted, weak, or a list; `*` matches any draft. */
function etagMatches(header: string, etag: string) {
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1'))
    .some((t) => t === '*' || t === etag);
}

export async function deletePrompt(db: Db, tenantId: string, promptName: string) {
  const rows = await db
    .delete(prompts)
    .where(and(eq(prompts.accountId, tenantId), eq(prompts.promptName, promptName)))
    .returning({ id: prompts.id });
  if (!rows.length) throw notFound('Prompt');
  return { message: `Prompt ${promptName} deleted` };
}

/**
 * Publishing snapshots the draft and the blocks it references. Publishing a draft that
 * is already the published version changes nothing and answers with that version.
 */
export async function publishPrompt(db: Db, tenantId: string, promptName: string) {
  return db.transaction(async (tx) => {
    const p = await lockPrompt(tx, tenantId, promptName);
    if (!p.hasUnpublishedChanges && p.publishedVersion !== null) {
      return publishAnswer(p);
    }
    const [{ last }] = await tx.select({ last: max(promptVersions.versionNumber) }).from(promptVersions).where(eq(promptVersions.promptId, p.id));
    const versionNumber = (last ?? 0) + 1;
    const blocks = await loadBlocks(tx as unknown as Db, tenantId, chunkTexts(p));
    await tx.insert(promptVersions).values({
      promptId: p.id,
      versionNumber,
      etag: p.etag,
      content: {
        category: p.category,
        description: p.description,
        enabled: p.enabled,
        systemChunks: p.systemChunks,
        userChunks: p.userChunks,
        toolDefs: p.toolDefs,
        variables: p.variables,
        models: p.models,
      },
      blocks: blocksUsedBy(p)
        .filter((n) => blocks.has(n))
        .map((n) => ({ blockName: n, content: blocks.get(n)!.content, description: blocks.get(n)!.description })),
    });
    const [u] = await tx
      .update(prompts)
      .set({ publishedVersion: versionNumber, publishedEtag: p.etag, hasUnpublishedChanges: false, updatedAt: sql`now()` })
      .where(eq(prompts.id, p.id))
      .returning();
    return publishAnswer(u);
  });
}

const publishAnswer = (p: PromptRow) => ({
  data: {
    tenantId: p.accountId,
    promptName: p.promptName,
    publishedVersion: String(p.publishedVersion),
    publishedEtag: p.publishedEtag!,
    hasUnpublishedChanges: p.hasUnpublishedChanges,
    updatedAt: iso(p.updatedAt),
  },
});

export async function listVersions(db: Db, tenantId: string, promptName: string, q: TenantPageQuery) {
  const p = await findPrompt(db, tenantId, promptName);
  const { limit, offset } = tenantWindow(q);
  const rows = await db
    .select()
    .from(promptVersions)
    .where(eq(promptVersions.promptId, p.id))
    .orderBy(desc(promptVersions.versionNumber))
    .limit(limit)
    .offset(offset);
  return tenantPage(q, rows.map((v) => ({ versionNumber: String(v.versionNumber), etag: v.etag, createdAt: iso(v.createdAt) })));
}

export async function getVersion(db: Db, tenantId: string, promptName: string, versionNumber: number) {
  const p = await findPrompt(db, tenantId, promptName);
  const [v] = await db
    .select()
    .from(promptVersions)
    .where(and(eq(promptVersions.promptId, p.id), eq(promptVersions.versionNumber, versionNumber)))
    .limit(1);
  if (!v) throw notFound('Version');
  const c = v.content as Json;
  return {
    data: {
      versionNumber: String(v.versionNumber),
      etag: v.etag,
      createdAt: iso(v.createdAt),
      tenantId,
      promptName,
      category: c.category as string,
      description: c.description as string,
      enabled: c.enabled as boolean,
      systemChunks: c.systemChunks as StoredChunk[],
      userChunks: c.userChunks as StoredChunk[],
      toolDefs: c.toolDefs as StoredToolDef[],
      variables: c.variables as StoredVariable[],
      blocks: v.blocks,
      models: c.models as StoredModel[],
    },
  };
}
