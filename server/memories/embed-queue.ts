import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { memories, memoryEmbeddingQueue, memoryEmbeddings } from '@/db/schema';
import { EMBED_BATCH_MS, embeddingsSettings, embeddingText, embedTexts, type EmbeddingsSettings } from './embeddings';
import { bucketsOf } from './vector-buckets';

/*
 * The background half of hybrid recall (inngest/functions/memory-embeddings.ts calls it): queued
 * memories (service.ts queues every write) get their vector from the configured model, a batch
 * at a time, never on a reader's path. A vector is kept only when the memory did not change while
 * it was computed (its updatedAt is compared when it is written); a memory changed meanwhile
 * stays queued for the next batch. An endpoint that refuses or fails leaves its batch queued with
 * a growing pause (1, 2, 4… minutes, at most 6 hours), so a model that is down costs nothing but
 * the next try. Vectors of another model than the configured one are queued again, a bounded
 * number per batch, and never read meanwhile (every query names its model).
 */

export const EMBED_BATCH = 64;

export type EmbedOutcome = { embedded: number; failed: number; left: boolean; error?: string };

export async function embedQueuedMemories(db: Db, settings: EmbeddingsSettings | null = embeddingsSettings(), batch = EMBED_BATCH): Promise<EmbedOutcome> {
  if (!settings) return { embedded: 0, failed: 0, left: false };
  // Vectors of a model no longer configured are computed again.
  await db.execute(sql`
    INSERT INTO ${memoryEmbeddingQueue} (memory_id)
    SELECT memory_id FROM ${memoryEmbeddings} WHERE ${memoryEmbeddings.model} <> ${settings.model}
      AND NOT EXISTS (SELECT 1 FROM ${memoryEmbeddingQueue} q WHERE q.memory_id = ${memoryEmbeddings.memoryId})
    LIMIT 1000
    ON CONFLICT DO NOTHING
  `);
  // Stamps are compared as PostgreSQL keeps them (microseconds), not as a JS Date would round them.
  const queued = await db
    .select({ memoryId: memoryEmbeddingQueue.memoryId, queuedAt: sql<string>`${memoryEmbeddingQueue.createdAt}::text` })
    .from(memoryEmbeddingQueue)
    .where(sql`${memoryEmbeddingQueue.notBefore} IS NULL OR ${memoryEmbeddingQueue.notBefore} <= now()`)
    .orderBy(memoryEmbeddingQueue.createdAt)
    .limit(batch + 1);
  const claimed = queued.slice(0, batch);
  const ids = claimed.map((q) => q.memoryId);
  if (!ids.length) return { embedded: 0, failed: 0, left: false };
  const rows = await db
    .select({ m: memories, stamp: sql<string>`${memories.updatedAt}::text` })
    .from(memories)
    .where(inArray(memories.id, ids))
    .then((r) => r.map(({ m, stamp }) => ({ ...m, stamp })));
  // Notes the agent keeps for itself are never searched: nothing to compute.
  const wanted = rows.filter((m) => !m.internal && embeddingText(m).trim());
  let vectors: number[][];
  try {
    vectors = await embedTexts(settings, wanted.map(embeddingText), EMBED_BATCH_MS, 1);
    if (vectors.length !== wanted.length) throw new Error(`the endpoint answered ${vectors.length} vectors for ${wanted.length} texts`);
  } catch (e) {
    await db
      .update(memoryEmbeddingQueue)
      .set({
        attempts: sql`${memoryEmbeddingQueue.attempts} + 1`,
        notBefore: sql`now() + make_interval(mins => least(360, power(2, ${memoryEmbeddingQueue.attempts})::int))`,
      })
      .where(inArray(memoryEmbeddingQueue.memoryId, ids));
    return { embedded: 0, failed: ids.length, left: queued.length > batch, error: e instanceof Error ? e.message : String(e) };
  }
  const skipped = new Set(rows.filter((m) => !wanted.includes(m)).map((m) => m.id));
  const done: string[] = [...skipped, ...ids.filter((id) => !rows.some((m) => m.id === id))];
  await db.transaction(async (tx) => {
    for (const [i, m] of wanted.entries()) {
      const values = {
        memoryId: m.id,
        accountId: m.accountId,
        userId: m.userId,
        teamId: m.scope === 'team' ? m.teamId : null,
        model: settings.model,
        vector: vectors[i],
        buckets: bucketsOf(vectors[i]),
      };
      // Written only while the memory is as it was read; one changed meanwhile stays queued.
      const written = await tx.execute(sql`
        INSERT INTO ${memoryEmbeddings} (memory_id, account_id, user_id, team_id, model, vector, buckets, source_updated_at)
        SELECT ${values.memoryId}, ${values.accountId}, ${values.userId}, ${values.teamId}, ${values.model}, ${`{${values.vector.join(',')}}`}::real[], ${`{${values.buckets.join(',')}}`}::int[], ${m.stamp}::timestamptz
        WHERE EXISTS (SELECT 1 FROM ${memories} WHERE ${memories.id} = ${m.id} AND ${memories.updatedAt} = ${m.stamp}::timestamptz)
        ON CONFLICT (memory_id) DO UPDATE SET team_id = excluded.team_id, user_id = excluded.user_id, model = excluded.model, vector = excluded.vector, buckets = excluded.buckets, source_updated_at = excluded.source_updated_at, created_at = now()
      `);
      if (written.rowCount) done.push(m.id);
    }
    // Done unless queued again since the batch was read.
    const stamps = claimed.filter((c) => done.includes(c.memoryId));
    await tx.execute(sql`
      DELETE FROM ${memoryEmbeddingQueue} q USING unnest(${sql.param(stamps.map((c) => c.memoryId))}::text[], ${sql.param(stamps.map((c) => c.queuedAt))}::text[]) AS x(id, at)
      WHERE q.memory_id = x.id AND q.created_at = x.at::timestamptz
    `);
  });
  return { embedded: done.length - skipped.size, failed: 0, left: queued.length > batch || done.length < ids.length };
}

/** Whether a memory has a current vector of the configured model (tests and the Memories page may ask). */
export async function hasVector(db: Db, memoryId: string, model: string): Promise<boolean> {
  const [row] = await db.select({ id: memoryEmbeddings.memoryId }).from(memoryEmbeddings).where(and(eq(memoryEmbeddings.memoryId, memoryId), eq(memoryEmbeddings.model, model)));
  return Boolean(row);
}
