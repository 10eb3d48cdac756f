import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { memories, memoryEmbeddings } from '@/db/schema';
import type { Ranked } from './ranking';
import { probesOf } from './vector-buckets';

/*
 * Nearest neighbours of a query's vector among the memories a reader sees, all in PostgreSQL.
 *
 * Where the database has pgvector (`CREATE EXTENSION vector`, made by the operator), the stored
 * `real[]` vectors are cast to pgvector's type and ordered by its cosine distance: an exact scan
 * of the reader's vectors in C. Elsewhere (the embedded server has no pgvector) the candidates
 * are the memories sharing a hash key with the query (vector-buckets.ts, each probed key read
 * through the GIN index on owner, team and keys), the CANDIDATES sharing the most are kept, and
 * those are ranked by their exact cosine, computed in SQL. Both answer the same list; the fallback may miss a
 * neighbour that shares no key (see vector-buckets.ts for how rarely).
 */

const CANDIDATES = 150;
/** A key shared by more memories than this is read only this far (a crowded key says little). */
const PER_KEY = 200;

const withPgvector = new WeakMap<Db, Promise<boolean>>();

/** Whether this database has pgvector installed; asked once per database handle. */
function hasPgvector(db: Db): Promise<boolean> {
  let known = withPgvector.get(db);
  if (!known) {
    known = db
      .execute<{ present: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS present`)
      .then((r) => r.rows[0]?.present === true)
      .catch(() => false);
    withPgvector.set(db, known);
  }
  return known;
}

export type VectorOwner = { userId: string; teamIds: string[] };

export async function rankByVector(db: Db, visible: SQL, owner: VectorOwner, model: string, query: number[], limit: number): Promise<Ranked> {
  const mine = owner.teamIds.length
    ? sql`(${memoryEmbeddings.userId} = ${owner.userId} OR ${memoryEmbeddings.teamId} = ANY(${sql.param(owner.teamIds)}::text[]))`
    : sql`${memoryEmbeddings.userId} = ${owner.userId}`;
  const seen = sql`EXISTS (SELECT 1 FROM ${memories} WHERE ${memories.id} = ${memoryEmbeddings.memoryId} AND ${visible})`;
  const q = `{${query.join(',')}}`;
  if (await hasPgvector(db)) {
    const { rows } = await db.execute<{ id: string; score: number }>(sql`
      SELECT ${memoryEmbeddings.memoryId} AS id, (1 - (${memoryEmbeddings.vector}::vector <=> ${q}::real[]::vector))::float8 AS score
      FROM ${memoryEmbeddings}
      WHERE ${memoryEmbeddings.model} = ${model} AND ${mine} AND ${seen}
      ORDER BY ${memoryEmbeddings.vector}::vector <=> ${q}::real[]::vector
      LIMIT ${limit}
    `);
    return rows.map((r) => ({ id: r.id, score: Number(r.score) }));
  }
  // Each probed key read through GIN on its own (an overlap test of every row against all the
  // probes costs more than the whole rest of the query); the number of keys a memory shares with
  // the query is how many of these reads found it.
  const { rows } = await db.execute<{ id: string; score: number }>(sql`
    WITH hits AS (
      SELECT hit.id, count(*) AS shared
      FROM unnest(${sql.param(probesOf(query))}::int[]) AS p(b)
      CROSS JOIN LATERAL (
        SELECT ${memoryEmbeddings.memoryId} AS id
        FROM ${memoryEmbeddings}
        WHERE ${memoryEmbeddings.model} = ${model} AND ${mine} AND ${memoryEmbeddings.buckets} @> ARRAY[p.b]
        LIMIT ${PER_KEY}
      ) hit
      GROUP BY hit.id
    ),
    candidates AS MATERIALIZED (
      SELECT h.id FROM hits h
      WHERE EXISTS (SELECT 1 FROM ${memories} WHERE ${memories.id} = h.id AND ${visible})
      ORDER BY h.shared DESC, h.id
      LIMIT ${CANDIDATES}
    )
    SELECT c.id, (SELECT sum(a * b) FROM unnest(e.vector, ${q}::real[]) AS t(a, b))::float8 AS score
    FROM candidates c JOIN memory_embeddings e ON e.memory_id = c.id
    ORDER BY score DESC, c.id
    LIMIT ${limit}
  `);
  return rows.map((r) => ({ id: r.id, score: Number(r.score) }));
}
