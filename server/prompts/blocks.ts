import { and, asc, eq, ilike, or } from 'drizzle-orm';
import { containsPattern } from '@/server/http/like';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { promptBlocks, prompts, type PromptBlockRow } from '@/db/schema';
import { conflict, notFound } from '@/server/http/errors';
import type { CreateBlockBody, ListBlocksQuery, UpdateBlockBody } from './blocks-contracts';
import { tenantPage, tenantWindow } from './contracts';
import { blocksUsedBy } from './service';

const iso = (d: Date) => d.toISOString();

/** Which prompts reference each block, computed from the prompts' chunks (never stored). */
async function usage(db: Db, tenantId: string): Promise<Map<string, string[]>> {
  const rows = await db
    .select({ promptName: prompts.promptName, systemChunks: prompts.systemChunks, userChunks: prompts.userChunks })
    .from(prompts)
    .where(eq(prompts.accountId, tenantId))
    .orderBy(asc(prompts.promptName));
  const used = new Map<string, string[]>();
  for (const p of rows) for (const b of blocksUsedBy(p)) used.set(b, [...(used.get(b) ?? []), p.promptName]);
  return used;
}

async function findBlock(db: Db, tenantId: string, blockName: string): Promise<PromptBlockRow> {
  const [b] = await db
    .select()
    .from(promptBlocks)
    .where(and(eq(promptBlocks.accountId, tenantId), eq(promptBlocks.blockName, blockName)))
    .limit(1);
  if (!b) throw notFound('Block');
  return b;
}


export async function listBlocks(db: Db, tenantId: string, q: z.infer<typeof ListBlocksQuery>) {
  const { limit, offset } = tenantWindow(q);
  const term = q.search ? containsPattern(q.search) : null;
  const rows = await db
    .select()
    .from(promptBlocks)
    .where(
      and(
        eq(promptBlocks.accountId, tenantId),
        term ? or(ilike(promptBlocks.blockName, term), ilike(promptBlocks.description, term)) : undefined,
      ),
    )
    .orderBy(asc(promptBlocks.blockName))
    .limit(limit)
    .offset(offset);
  const used = await usage(db, tenantId);
  return tenantPage(
    q,
    rows.map((b) => ({
      blockName: b.blockName,
      description: b.description,
      usedByPrompts: used.get(b.blockName) ?? [],
      createdAt: iso(b.createdAt),
      updatedAt: iso(b.updatedAt),
    })),
  );
}

export async function getBlock(db: Db, tenantId: string, blockName: string) {
  const b = await findBlock(db, tenantId, blockName);
  const used = await usage(db, tenantId);
  return {
    data: {
      blockName: b.blockName,
      content: b.content,
      description: b.description,
      usedByPrompts: used.get(b.blockName) ?? [],
      createdAt: iso(b.createdAt),
      updatedAt: iso(b.updatedAt),
    },
  };
}

export async function createBlock(db: Db, tenantId: string, input: z.infer<typeof CreateBlockBody>) {
  const [b] = await db
    .insert(promptBlocks)
    .values({ accountId: tenantId, ...input })
    .onConflictDoNothing()
    .returning();
  if (!b) throw conflict(`blockName: a block named ${input.blockName} already exists`);
  const used = await usage(db, tenantId);
  return { data: { blockName: b.blockName, description: b.description, usedByPrompts: used.get(b.blockName) ?? [], createdAt: iso(b.createdAt) } };
}

export async function updateBlock(db: Db, tenantId: string, blockName: string, input: z.infer<typeof UpdateBlockBody>) {
  const current = await findBlock(db, tenantId, blockName);
  const set = changedFields({ content: input.content, description: input.description });
  const [b] = set ? await db.update(promptBlocks).set(set).where(eq(promptBlocks.id, current.id)).returning() : [current];
  const used = await usage(db, tenantId);
  return {
    data: { blockName: b.blockName, content: b.content, description: b.description, usedByPrompts: used.get(b.blockName) ?? [], updatedAt: iso(b.updatedAt) },
  };
}

/** A block still referenced by a prompt is not deleted: 409 names the prompts to edit first. */
export async function deleteBlock(db: Db, tenantId: string, blockName: string) {
  const b = await findBlock(db, tenantId, blockName);
  const usedBy = (await usage(db, tenantId)).get(blockName) ?? [];
  if (usedBy.length) {
    throw conflict(`Block ${blockName} is used by ${usedBy.join(', ')}: remove the references first`, { usedByPrompts: usedBy });
  }
  await db.delete(promptBlocks).where(eq(promptBlocks.id, b.id));
  return { message: `Block ${blockName} deleted` };
}
