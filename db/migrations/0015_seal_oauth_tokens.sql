ALTER TABLE "oauth_connections" ALTER COLUMN "tokens" SET DATA TYPE text;--> statement-breakpoint
ALTER TABLE "oauth_connections" ADD COLUMN "details" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
-- Tokens stored in clear before sealing existed are dropped (those connections must be made again); the workspace they named is kept.
UPDATE "oauth_connections" SET "details" = jsonb_strip_nulls(jsonb_build_object('team', "tokens"::jsonb->'team')), "tokens" = 'cleared: connect again';
