ALTER TABLE "skills" ADD COLUMN "applies" text;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "prompt_name" text;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "prompt_version" integer;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "prompt_variables" jsonb;