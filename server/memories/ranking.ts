import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { atOnce } from '@/db/at-once';
import type { Db } from '@/db/client';
import { memories, type MemoryRow } from '@/db/schema';

/*
 * Ranked retrieval of memories, in PostgreSQL (spec 6, Recall). Three rankings, each a list of
 * memory ids best first, fused by reciprocal rank (fuse):
 *
 * - text: the words of what is asked, stemmed in the reader's language, each matched through the
 *   memories_search GIN index (owner, team and document in one index) and weighed by how rare it
 *   is (an inverse document frequency, as BM25 does, from the column's statistics) times
 *   ts_rank's field weights (content A, structured data B, tags C). A word in more than 4 % of
 *   memories says little about which one is meant and is left out, which also bounds the work
 *   a common word costs.
 * - names: capitalised words and identifiers of what is asked, matched by trigram word
 *   similarity (pg_trgm), so a misspelt or inflected name still finds its memory.
 * - vectors (with an embeddings model): nearest neighbours of the query's vector among the
 *   reader's memories (vector-search.ts).
 *
 * Every query is scoped by the same visibility rule as the memories service (the `visible`
 * fragment: the reader's own and their active teams' shared memories, never another user's).
 */

/** Ids best first; the text ranking also carries each memory's row (read in the same statement: no second read). */
export type Ranked = { id: string; score: number; row?: MemoryRow }[];

const columns = Object.entries(getTableColumns(memories));
/** The memories' columns as the Drizzle schema declares them, read from `m`. */
const rowColumns = sql.join(
  columns.map(([key, c]) => sql`${sql.identifier('m')}.${sql.identifier(c.name)} AS ${sql.identifier(`row_${key}`)}`),
  sql`, `,
);
/** A raw row's `row_*` columns as the MemoryRow Drizzle would have read (each column's own mapping from the driver's value). */
function memoryRowOf(raw: Record<string, unknown>): MemoryRow {
  return Object.fromEntries(columns.map(([key, c]) => [key, raw[`row_${key}`] === null ? null : c.mapFromDriverValue(raw[`row_${key}`])])) as MemoryRow;
}

/** The memories' text search document: a generated column made in SQL (db/migrations/0067_memory_search.sql), not in the Drizzle schema. */
const searchDocument = sql`${memories}.search`;

/** A piece of what is asked, with how much its words count (the task's title and description 1, older messages less). */
export type WeightedText = { text: string; weight: number };

/** At most this many distinct words of what is asked are looked up. */
const MAX_TERMS = 48;
/** At most this many names or identifiers. */
const MAX_NAMES = 8;
/** A word in more than this share of memories says little about which one is meant (the two rarest words of a text are kept whatever their share). */
const COMMON_SHARE = 0.04;
/** At most this many memories are scored for one text (those matching any of its kept words). */
const MAX_CANDIDATES = 5_000;

type WordShares = { shares: Map<string, number>; rarest: number; readAt: number };
const wordShares = new WeakMap<Db, Promise<WordShares>>();
/** The column's statistics change slowly (ANALYZE runs when enough rows changed): read again every few minutes. */
const SHARES_FOR_MS = 5 * 60_000;

/**
 * How common each frequent word of the memories is: PostgreSQL's own statistics of the search
 * column (pg_stats.most_common_elems and their frequencies, which ANALYZE keeps for the planner;
 * the two extra frequencies at the end are the lowest and highest). Any word not among them is
 * rarer than the rarest that is. Read once per database handle and kept a few minutes.
 */
function sharesOf(db: Db): Promise<WordShares> {
  const known = wordShares.get(db);
  const fresh = known?.then((k) => Date.now() - k.readAt < SHARES_FOR_MS);
  const read = async (): Promise<WordShares> => {
    const { rows } = await db.execute<{ elems: string[] | null; freqs: number[] | null }>(sql`
      SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs
      FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'memories' AND attname = 'search'
    `);
    const elems = rows[0]?.elems ?? [];
    const freqs = (rows[0]?.freqs ?? []).map(Number);
    return { shares: new Map(elems.map((e, i) => [e, freqs[i]])), rarest: freqs[elems.length] ?? 0, readAt: Date.now() };
  };
  const next = (async () => ((await fresh) && known ? known : read()))().catch(() => ({ shares: new Map<string, number>(), rarest: 0, readAt: Date.now() }));
  wordShares.set(db, next);
  return next;
}

/** A word quoted for to_tsquery: the lexeme as it is, quotes doubled and backslashes escaped. */
const quoted = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * The memories the reader sees whose text shares words with `parts`, best first. `visible` is
 * the visibility fragment over the `memories` table (service.ts visibleFilter) and any further
 * condition (not expired).
 *
 * The words of `parts` are read in the reader's language (stemmed, stop words left out); each
 * is weighed by how rare it is among memories (sharesOf: one catalog read every few minutes
 * instead of a count per word per query), and a word in more than COMMON_SHARE of them is left
 * out (the two rarest words of a text stay whatever their share). The kept words are matched in
 * one pass of the GIN index (OR-ed), each match scored by ts_rank times the word's weight, and
 * the best rows are returned whole (no second read). Until the table has statistics every word
 * counts the same.
 */
export async function rankByText(db: Db, visible: SQL, config: string, parts: WeightedText[], limit: number): Promise<Ranked> {
  const used = parts.filter((p) => p.text.trim());
  if (!used.length) return [];
  const lexemes = async () =>
    (
      await db.execute<{ lexeme: string; w: number }>(sql`
        SELECT lexeme, max(p.w)::float8 AS w
        FROM unnest(${sql.param(used.map((p) => p.text.slice(0, 20_000)))}::text[], ${sql.param(used.map((p) => p.weight))}::float8[]) AS p(t, w)
        CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector(${config}::regconfig, p.t))) AS lexeme
        GROUP BY lexeme
        ORDER BY max(p.w) DESC, count(*) DESC, length(lexeme) DESC, lexeme
        LIMIT ${MAX_TERMS}
      `)
    ).rows;
  const [terms, stats] = await atOnce(db, [
    lexemes,
    () => sharesOf(db),
  ]);
  if (!terms.length) return [];
  const rated = terms.map((t) => ({ ...t, share: stats.shares.get(t.lexeme) ?? (stats.rarest ? stats.rarest / 2 : 0.001) }));
  const rarest = new Set([...rated].sort((a, b) => a.share - b.share).slice(0, 2).map((t) => t.lexeme));
  const kept = rated.filter((t) => t.share <= COMMON_SHARE || rarest.has(t.lexeme));
  const idf = kept.map((t) => Math.log(1 + (1 - t.share + 1e-4) / (t.share + 1e-4)));
  const { rows } = await db.execute<{ id: string; score: number } & Record<string, unknown>>(sql`
    WITH kept AS MATERIALIZED (
      SELECT k.w, k.idf, plainto_tsquery('simple', k.lexeme) AS q
      FROM unnest(${sql.param(kept.map((t) => t.lexeme))}::text[], ${sql.param(kept.map((t) => t.w))}::float8[], ${sql.param(idf)}::float8[]) AS k(lexeme, w, idf)
    ),
    candidates AS MATERIALIZED (
      SELECT ${memories.id} AS id, ${memories}.ctid AS tid, ${searchDocument} AS doc
      FROM ${memories}
      WHERE ${visible} AND ${searchDocument} @@ to_tsquery('simple', ${kept.map((t) => quoted(t.lexeme)).join(' | ')})
      LIMIT ${MAX_CANDIDATES}
    ),
    best AS MATERIALIZED (
      SELECT c.id, c.tid, sum(k.w * k.idf * ts_rank('{0.2, 0.4, 0.7, 1.0}', c.doc, k.q, 1))::float8 AS score
      FROM candidates c JOIN kept k ON c.doc @@ k.q
      GROUP BY c.id, c.tid
      ORDER BY score DESC, c.id
      LIMIT ${limit}
    )
    SELECT b.id, b.score, ${rowColumns}
    FROM best b JOIN ${memories} m ON m.ctid = b.tid
    ORDER BY b.score DESC, b.id
  `);
  return rows.map((r) => ({ id: r.id, score: Number(r.score), row: memoryRowOf(r) }));
}

/**
 * Names and identifiers in a text: capitalised words that do not open a sentence, words that
 * mix letters and digits, addresses. The words that open a sentence are left out because any
 * word is capitalised there.
 */
export function namesIn(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}@._'’-]*[\p{L}\p{N}]/gu)) {
    const word = m[0].replace(/['’]s$/u, '');
    const before = text.slice(Math.max(0, m.index - 4), m.index);
    const opensSentence = m.index === 0 || /[.!?:\n]\s*$/.test(before) || !text.slice(0, m.index).trim();
    const capitalised = /^\p{Lu}\p{Ll}/u.test(word);
    const identifier = /\p{L}/u.test(word) && /\p{N}/u.test(word);
    if (word.length >= 3 && ((capitalised && !opensSentence) || identifier || word.includes('@'))) out.add(word);
    if (out.size >= MAX_NAMES) break;
  }
  return [...out];
}

/**
 * The memories the reader sees that name one of `names`, best first. `exact`: the name as a
 * case-insensitive substring (through the trigram index: cheap, for recall); otherwise by
 * trigram word similarity, so a misspelt name still finds its memory (the search box asks this
 * when the other rankings found too little: it reads every memory of the reader's).
 */
export async function rankByNames(db: Db, visible: SQL, names: string[], limit: number, how: 'exact' | 'similar' = 'exact'): Promise<Ranked> {
  if (!names.length) return [];
  const matches =
    how === 'exact'
      ? sql`${memories.content} ILIKE '%' || replace(replace(replace(n.name, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'`
      : sql`n.name <% ${memories.content}`;
  const { rows } = await db.execute<{ id: string; score: number }>(sql`
    SELECT hit.id, sum(hit.s)::float8 AS score
    FROM unnest(${sql.param(names.slice(0, MAX_NAMES))}::text[]) AS n(name)
    CROSS JOIN LATERAL (
      SELECT ${memories.id} AS id, word_similarity(n.name, ${memories.content}) AS s
      FROM ${memories}
      WHERE ${visible} AND ${matches}
      LIMIT 200
    ) hit
    GROUP BY hit.id
    ORDER BY score DESC, hit.id
    LIMIT ${limit}
  `);
  return rows.map((r) => ({ id: r.id, score: Number(r.score) }));
}

/** Reciprocal rank fusion (k = 60, as Cormack et al.): a memory high in any list, and higher in several, comes first. */
export function fuse(lists: Ranked[], k = 60): Ranked {
  const scores = new Map<string, number>();
  const rows = new Map<string, MemoryRow>();
  for (const list of lists) {
    list.forEach((r, i) => {
      scores.set(r.id, (scores.get(r.id) ?? 0) + 1 / (k + i + 1));
      if (r.row) rows.set(r.id, r.row);
    });
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score, row: rows.get(id) })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}
