CREATE TABLE "executor_crons" (
	"function_id" text NOT NULL,
	"cron" text NOT NULL,
	"next_at" timestamp with time zone NOT NULL,
	CONSTRAINT "executor_crons_function_id_cron_pk" PRIMARY KEY("function_id","cron")
);
--> statement-breakpoint
CREATE TABLE "executor_events" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ts" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executor_functions" (
	"id" text PRIMARY KEY NOT NULL,
	"app_name" text NOT NULL,
	"url" text NOT NULL,
	"config" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executor_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"function_id" text NOT NULL,
	"event" jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"steps" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"stack" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"wait" jsonb,
	"concurrency_key" text,
	"available_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"output" jsonb,
	"error" jsonb,
	"parent_run_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "executor_step_log" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"step_id" text NOT NULL,
	"name" text,
	"op" text NOT NULL,
	"attempt" integer NOT NULL,
	"data" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "executor_events_name" ON "executor_events" USING btree ("name","created_at");--> statement-breakpoint
CREATE INDEX "executor_runs_ready" ON "executor_runs" USING btree ("status","available_at");--> statement-breakpoint
CREATE INDEX "executor_runs_function" ON "executor_runs" USING btree ("function_id","status");--> statement-breakpoint
CREATE INDEX "executor_step_log_run" ON "executor_step_log" USING btree ("run_id","created_at");