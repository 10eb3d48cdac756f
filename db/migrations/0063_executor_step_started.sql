ALTER TABLE "executor_runs" ADD COLUMN "running_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "executor_runs" ADD COLUMN "step_started_at" timestamp with time zone;