import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns';
import { driveFiles } from './files';
import { regconfig, tsvector } from './memories';

/**
 * The text of a user's file as recall matches it (server/files/recall.ts): extracted in the
 * background (inngest/functions/memory-file-texts.ts) from ready files, the first
 * FILE_TEXT_CHARS characters of it. A file with no text (an image, an unreadable format) keeps
 * a row with `text` empty and `note` saying why, so it is not read again. Only the file's name
 * and id ever reach a run from here: its words are outside content, read through read_file.
 */
export const fileTexts = pgTable(
  'file_texts',
  {
    fileId: text('file_id')
      .primaryKey()
      .references(() => driveFiles.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
    userId: text('user_id').notNull(),
    text: text('text').notNull(),
    note: text('note'),
    searchConfig: regconfig('search_config').notNull().default(sql`'simple'::regconfig`),
    search: tsvector('search').generatedAlwaysAs(sql`to_tsvector(search_config, text)`),
    attempts: integer('attempts').notNull().default(0),
    extractedAt: ts('extracted_at'),
    createdAt: createdAt(),
  },
  (t) => [index('file_texts_search').using('gin', t.userId, t.search)],
);
