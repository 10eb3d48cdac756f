ALTER TABLE "organizations" ADD COLUMN "chat_model_tier" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "task_model_tier" text;