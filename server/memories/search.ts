import { and, inArray, isNull, or, gt, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { atOnce } from '@/db/at-once';
import type { Db } from '@/db/client';
import { memories, type MemoryRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { logger } from '@/server/logger';
import type { SearchMemoriesQuery } from './contracts';
import { EMBED_QUERY_MS, embeddingsSettings, embedTexts, type EmbeddingsSettings } from './embeddings';
import { fuse, namesIn, rankByNames, rankByText, type Ranked, type WeightedText } from './ranking';
import { searchConfigFor } from './search-config';
import { activeTeams, toPublicMemory, visibleFilter, type Teams } from './service';
import { rankByVector } from './vector-search';

/*
 * Ranked search over the memories a user sees (spec 6, Recall): GET /memories/search, the
 * search_memories tool and recall's relevance part all come here. Text and names always; with
 * STEWARD_EMBEDDINGS_MODEL also vectors, the lists fused by reciprocal rank. The answer has the
 * same shape with or without embeddings; a query whose vector cannot be had in time (the
 * endpoint down or slow) is ranked by text alone rather than failing.
 */

export type RankRequest = {
  /** What is asked, in weighed pieces. */
  parts: WeightedText[];
  /**
   * Whether names and identifiers are looked for by trigrams too (search: the box and the tool).
   * Recall leaves it to full text, which matches a name as a word, and to the contacts it names.
   */
  byNames?: boolean;
  limit: number;
  /** Expired date memories (endDate past) are left out unless asked for. */
  includeExpired?: boolean;
  now?: Date;
  /** Already known to the caller; read when absent. */
  teams?: Teams;
};

/** Each ranking reads more than it returns, so fusion has the tail of each list to work with. */
const DEPTH = 2;

export async function rankMemories(db: Db, actor: Actor, req: RankRequest, settings: EmbeddingsSettings | null = embeddingsSettings()): Promise<Ranked> {
  const user = requireUser(actor);
  const teams = req.teams ?? (await activeTeams(db, user.id));
  const visible = and(await visibleFilter(db, actor, teams), req.includeExpired ? undefined : notExpired(req.now ?? new Date()))!;
  const text = req.parts.map((p) => p.text).join('\n');
  const names = req.byNames ? namesFor(req.parts) : [];
  const depth = req.limit * DEPTH;
  const [byText, byNames, byVector] = await atOnce(db, [
    () => rankByText(db, visible, searchConfigFor(user.locale), req.parts, depth),
    () => rankByNames(db, visible, names, depth),
    async () => (settings ? queryVector(settings, text).then((v) => (v ? rankByVector(db, visible, { userId: user.id, teamIds: teams.ids }, settings.model, v, depth) : [])) : []),
  ]);
  const fused = fuse([byText, byNames, byVector]);
  // Too little found: a name may be misspelt; look again by similarity (slower: every memory of the reader's is compared).
  if (names.length && fused.length < req.limit) return fuse([byText, await rankByNames(db, visible, names, depth, 'similar'), byVector]).slice(0, req.limit);
  return fused.slice(0, req.limit);
}

/**
 * The words looked for by trigram similarity: a short query (what a person types in a search box)
 * has every word of four letters or more taken as a possible name, so a misspelt one still
 * finds; a longer text only its names and identifiers (ranking.ts namesIn).
 */
function namesFor(parts: WeightedText[]): string[] {
  const main = parts.filter((p) => p.weight >= 0.75).map((p) => p.text).join('\n');
  const words = main.match(/[\p{L}\p{N}][\p{L}\p{N}@._'’-]*/gu) ?? [];
  return words.length <= 6 ? words.filter((w) => w.length >= 4) : namesIn(main);
}

/**
 * The ranked memories with their rows, best first: those the text ranking read already, the others
 * (found by name or vector only) read here. One deleted meanwhile is left out.
 */
export async function withRows(db: Db, ranked: Ranked): Promise<Array<{ id: string; score: number; row: MemoryRow }>> {
  const missing = ranked.filter((r) => !r.row).map((r) => r.id);
  const read = missing.length ? await db.select().from(memories).where(inArray(memories.id, missing)) : [];
  const byId = new Map(read.map((m) => [m.id, m]));
  return ranked.flatMap((r) => {
    const row = r.row ?? byId.get(r.id);
    return row ? [{ id: r.id, score: r.score, row }] : [];
  });
}

export const notExpired = (now: Date): SQL => or(isNull(memories.endDate), gt(memories.endDate, now))!;

/**
 * GET /memories/search: the user's and their teams' memories best first, each with its score (a
 * fused rank: only the order means something). Expired date memories are found too, marked
 * `isExpired`: the person searching may be looking for one.
 */
export async function searchMemories(db: Db, actor: Actor, q: z.infer<typeof SearchMemoriesQuery>) {
  const ranked = await withRows(db, await rankMemories(db, actor, { parts: [{ text: q.q, weight: 1 }], limit: q.limit ?? 20, includeExpired: true, byNames: true }));
  const now = new Date();
  return { ok: true as const, memories: ranked.map((r) => ({ ...toPublicMemory(r.row, now), score: Number(r.score.toFixed(6)) })) };
}

/** Recently asked queries' vectors, per model: a run asks the same on each of its steps. */
const vectors = new Map<string, number[]>();
const REMEMBERED = 256;

/** After a failed query vector, the endpoint is left alone this long (every step of a run would ask again). */
const RESTING_MS = 30_000;
const restingUntil = new Map<string, number>();

async function queryVector(settings: EmbeddingsSettings, text: string): Promise<number[] | null> {
  const endpoint = `${settings.model}\u0000${settings.baseUrl}`;
  const key = `${endpoint}\u0000${text}`;
  const known = vectors.get(key);
  if (known) return known;
  if ((restingUntil.get(endpoint) ?? 0) > Date.now()) return null;
  try {
    const [v] = await embedTexts(settings, [text.slice(0, 8_000)], EMBED_QUERY_MS);
    if (!v) return null;
    vectors.set(key, v);
    if (vectors.size > REMEMBERED) vectors.delete(vectors.keys().next().value!);
    return v;
  } catch (err) {
    restingUntil.set(endpoint, Date.now() + RESTING_MS);
    logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'memories: the query could not be embedded; ranked by text alone');
    return null;
  }
}
