import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { storableText } from '@/db/storable';
import { driveFiles, fileTexts, users } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { logger } from '@/server/logger';
import { searchConfigFor } from '@/server/memories/search-config';
import { extractText } from './extract';
import { MAX_EXTRACT_BYTES } from './read';
import { fileStorage } from './storage';

/*
 * The user's files in recall (spec 6: "a file whose text matches"). Text is extracted in the
 * background (inngest/functions/memory-file-texts.ts → indexFileTexts) into file_texts, the first
 * FILE_TEXT_CHARS characters of each ready file; recall then asks which of the user's files
 * share enough of the run's words (filesMatching). A run is shown only the file's name, type and
 * id, so it knows to read_file it: what a document says is outside content, and it reaches the
 * model through read_file, which marks the run as having read it (taint), never through recall.
 */

export const FILE_TEXT_CHARS = 100_000;
const MAX_ATTEMPTS = 3;
const MAX_WORDS = 32;

export type MatchingFile = { id: string; name: string; mimeType: string | null; size: number; matched: number };

/**
 * The user's own ready files whose text holds at least two of the words of `text` and at least
 * a quarter of them (so one common word does not bring every document), most words first.
 */
export async function filesMatching(db: Db, actor: UserActor, text: string, config: string, limit = 3): Promise<MatchingFile[]> {
  if (!text.trim()) return [];
  const { rows } = await db.execute<{ id: string; name: string; mime_type: string | null; size: string; matched: number }>(sql`
    WITH words AS MATERIALIZED (
      SELECT lexeme FROM unnest(tsvector_to_array(to_tsvector(${config}::regconfig, ${text.slice(0, 20_000)}))) AS lexeme
      ORDER BY length(lexeme) DESC, lexeme LIMIT ${MAX_WORDS}
    ),
    query AS MATERIALIZED (
      SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | ')) AS q, count(*) AS n FROM words
    ),
    hits AS (
      SELECT t.file_id, (SELECT count(*) FROM words w WHERE t.search @@ plainto_tsquery('simple', w.lexeme))::int AS matched, ts_rank(t.search, query.q) AS rank
      FROM ${fileTexts} t CROSS JOIN query
      WHERE t.user_id = ${actor.user.id} AND query.n > 0 AND t.search @@ query.q
      LIMIT 200
    )
    SELECT f.id, f.name, f.mime_type, f.size, h.matched
    FROM hits h JOIN ${driveFiles} f ON f.id = h.file_id CROSS JOIN query
    WHERE f.account_id = ${actor.accountId} AND f.user_id = ${actor.user.id} AND f.status = 'ready'
      AND h.matched >= 2 AND h.matched * 4 >= query.n
    ORDER BY h.matched DESC, h.rank DESC, f.id
    LIMIT ${limit}
  `);
  return rows.map((r) => ({ id: r.id, name: r.name, mimeType: r.mime_type, size: Number(r.size), matched: Number(r.matched) }));
}

/** One line of a matching file for the run's context: what it is and how to read it. */
export function fileLine(f: MatchingFile): string {
  return `- ${f.name}${f.mimeType ? ` (${f.mimeType})` : ''} [file ${f.id}]`;
}

/**
 * Extracts the text of up to `batch` ready files that have none yet (newest first), and tries
 * again those whose extraction failed, up to MAX_ATTEMPTS times. A file with no text (an image,
 * a format read_file refuses, too large) keeps an empty text and a note, so it is not read again.
 */
export async function indexFileTexts(db: Db, batch = 20): Promise<{ indexed: number; failed: number }> {
  const pending = await db.execute<{ id: string; account_id: string; user_id: string; name: string; mime_type: string | null; size: string; storage_key: string; locale: string | null }>(sql`
    SELECT f.id, f.account_id, f.user_id, f.name, f.mime_type, f.size, f.storage_key, u.locale
    FROM ${driveFiles} f JOIN ${users} u ON u.id = f.user_id
    LEFT JOIN ${fileTexts} t ON t.file_id = f.id
    WHERE f.status = 'ready' AND (t.file_id IS NULL OR (t.note LIKE 'failed:%' AND t.attempts < ${MAX_ATTEMPTS} AND t.extracted_at < now() - interval '10 minutes'))
    ORDER BY f.created_at DESC
    LIMIT ${batch}
  `);
  let indexed = 0;
  let failed = 0;
  for (const f of pending.rows) {
    let text = '';
    let note: string | null = null;
    try {
      if (Number(f.size) > MAX_EXTRACT_BYTES) note = `larger than ${MAX_EXTRACT_BYTES} bytes`;
      else {
        const extracted = await extractText(await fileStorage().read(f.storage_key), f.mime_type, f.name);
        // A document's text may hold what PostgreSQL cannot store (db/storable.ts).
        if (extracted.kind === 'text') text = storableText(extracted.text.slice(0, FILE_TEXT_CHARS));
        else note = extracted.kind === 'image' ? 'an image' : extracted.reason;
      }
      indexed++;
    } catch (err) {
      failed++;
      note = `failed: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
      logger.warn({ err: note, fileId: f.id }, 'files: text for recall not extracted');
    }
    await db.execute(sql`
      INSERT INTO ${fileTexts} (file_id, account_id, user_id, text, note, search_config, attempts, extracted_at)
      VALUES (${f.id}, ${f.account_id}, ${f.user_id}, ${text}, ${note === null ? null : storableText(note)}, ${searchConfigFor(f.locale)}::regconfig, 1, now())
      ON CONFLICT (file_id) DO UPDATE SET text = excluded.text, note = excluded.note, attempts = ${fileTexts}.attempts + 1, extracted_at = now()
    `);
  }
  return { indexed, failed };
}
