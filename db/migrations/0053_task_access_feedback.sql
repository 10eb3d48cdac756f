ALTER TABLE "tasks" ADD COLUMN "handled_by_email" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "access_hold" jsonb;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "follower_feedback" jsonb DEFAULT '{}'::jsonb NOT NULL;