CREATE UNIQUE INDEX "skills_account_browser" ON "skills" USING btree ("account_id") WHERE "skills"."kind" = 'browser';--> statement-breakpoint
-- Every account that exists now keeps browser automation: its browser skill is installed, as a new
-- account's is at creation (server/accounts/service.ts). The id has the shape of newId() (24
-- lower-case hex characters, db/schema/columns.ts). An account whose account-wide skill already
-- holds the name `browser` gets it as `workspace-browser` (as POST /skills names it then); if
-- that is taken too, none: POST /skills answers 409 until one of those names is free.
INSERT INTO "skills" ("id", "account_id", "owner_user_id", "kind", "name", "title", "description")
SELECT
  left(md5(gen_random_uuid()::text), 24),
  a."id",
  NULL,
  'browser',
  CASE WHEN EXISTS (SELECT 1 FROM "skills" s WHERE s."account_id" = a."id" AND s."owner_user_id" IS NULL AND s."name" = 'browser') THEN 'workspace-browser' ELSE 'browser' END,
  'Workspace browser',
  'Lets the account''s assistants open, read and act on web pages in each user''s workspace browser (browser_open, browser_read, browser_act).'
FROM "accounts" a
WHERE NOT EXISTS (SELECT 1 FROM "skills" s WHERE s."account_id" = a."id" AND s."kind" = 'browser')
ON CONFLICT DO NOTHING;
