ALTER TABLE "organizations" ADD COLUMN "sso" jsonb;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "scim" jsonb;