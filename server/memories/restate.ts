import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { memories } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { searchConfigFor } from './search-config';

/*
 * "Saving a memory that restates one the run saw updates that one instead of adding a
 * duplicate" (spec 6, Recall). A new text restates a memory when most of their words are the
 * same: at least RESTATES_OVERLAP of their stemmed words in common (of all the words either
 * has) and a trigram similarity of at least RESTATES_SIMILARITY. "Prefers a window seat" and
 * "The user prefers window seats" restate each other; "Prefers meetings after 10am" and "Prefers
 * meetings before 4pm" are two facts. Only a memory the user authored can be updated this way
 * (as PUT allows), and only one among `seen`: the memories the run was shown.
 */

export const RESTATES_OVERLAP = 0.6;
export const RESTATES_SIMILARITY = 0.5;

export async function restatedMemory(db: Db, actor: UserActor, content: string, seen: readonly string[]): Promise<string | null> {
  if (!seen.length || !content.trim()) return null;
  const config = searchConfigFor(actor.user.locale);
  const { rows } = await db.execute<{ id: string }>(sql`
    WITH fresh AS MATERIALIZED (SELECT tsvector_to_array(to_tsvector(${config}::regconfig, ${content})) AS words)
    SELECT m.id
    FROM ${memories} m CROSS JOIN fresh
    CROSS JOIN LATERAL (
      SELECT
        (SELECT count(*) FROM (SELECT unnest(tsvector_to_array(to_tsvector(${config}::regconfig, m.content))) INTERSECT SELECT unnest(fresh.words)) i)::float8
          / nullif((SELECT count(*) FROM (SELECT unnest(tsvector_to_array(to_tsvector(${config}::regconfig, m.content))) UNION SELECT unnest(fresh.words)) u), 0) AS overlap,
        similarity(m.content, ${content}) AS similar
    ) s
    WHERE m.id = ANY(${sql.param([...seen])}::text[]) AND m.account_id = ${actor.accountId} AND m.user_id = ${actor.user.id} AND NOT m.internal AND m.content IS NOT NULL
      AND s.overlap >= ${RESTATES_OVERLAP} AND s.similar >= ${RESTATES_SIMILARITY}
    ORDER BY s.overlap + s.similar DESC, m.created_at DESC
    LIMIT 1
  `);
  return rows[0]?.id ?? null;
}
