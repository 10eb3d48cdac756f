-- Memories written before recall's ranking: indexed in their author's language (the same table
-- as server/memories/search-config.ts), and queued for a vector should embeddings be switched on.
UPDATE "memories" m SET "search_config" = (CASE split_part(lower(u.locale), '-', 1)
  WHEN 'ar' THEN 'arabic' WHEN 'hy' THEN 'armenian' WHEN 'eu' THEN 'basque' WHEN 'ca' THEN 'catalan'
  WHEN 'da' THEN 'danish' WHEN 'nl' THEN 'dutch' WHEN 'en' THEN 'english' WHEN 'et' THEN 'estonian'
  WHEN 'fi' THEN 'finnish' WHEN 'fr' THEN 'french' WHEN 'de' THEN 'german' WHEN 'el' THEN 'greek'
  WHEN 'hi' THEN 'hindi' WHEN 'hu' THEN 'hungarian' WHEN 'id' THEN 'indonesian' WHEN 'ga' THEN 'irish'
  WHEN 'it' THEN 'italian' WHEN 'lt' THEN 'lithuanian' WHEN 'ne' THEN 'nepali' WHEN 'nb' THEN 'norwegian'
  WHEN 'nn' THEN 'norwegian' WHEN 'no' THEN 'norwegian' WHEN 'pt' THEN 'portuguese' WHEN 'ro' THEN 'romanian'
  WHEN 'ru' THEN 'russian' WHEN 'sr' THEN 'serbian' WHEN 'es' THEN 'spanish' WHEN 'sv' THEN 'swedish'
  WHEN 'ta' THEN 'tamil' WHEN 'tr' THEN 'turkish' WHEN 'yi' THEN 'yiddish' ELSE 'simple' END)::regconfig
FROM "users" u WHERE u.id = m.user_id;
--> statement-breakpoint
-- What ranked search and recall match (server/memories/ranking.ts), kept out of the Drizzle
-- schema so the rows every list reads do not carry it: the content weighs most (A), a structured
-- memory's data next (B: string and number values, and keys), the tags least (C).
ALTER TABLE "memories" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector(search_config, coalesce(content, '')), 'A')
  || setweight(jsonb_to_tsvector(search_config, coalesce(data, '{}'::jsonb), '["string", "numeric", "key"]'), 'B')
  || setweight(jsonb_to_tsvector(search_config, tags, '["string"]'), 'C')
) STORED;
--> statement-breakpoint
-- One user's matches of a term straight from GIN (btree_gin: 0065). Not the team's: an index
-- searchable by team alone would be taken for plain lists' team part (memories_team_list).
CREATE INDEX "memories_search" ON "memories" USING gin ("user_id", "search");
--> statement-breakpoint
INSERT INTO "memory_embedding_queue" ("memory_id") SELECT "id" FROM "memories" WHERE NOT "internal" ON CONFLICT DO NOTHING;
