CREATE TABLE "task_model_calls" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"run_id" text NOT NULL,
	"account_id" text NOT NULL,
	"seq" integer NOT NULL,
	"model_tier" text NOT NULL,
	"model" text,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"cache_read_tokens" integer DEFAULT 0 NOT NULL,
	"cache_creation_tokens" integer DEFAULT 0 NOT NULL,
	"charged_credits" numeric(20, 6) DEFAULT 0 NOT NULL,
	"is_billable" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "task_model_calls" ADD CONSTRAINT "task_model_calls_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_model_calls" ADD CONSTRAINT "task_model_calls_run_id_task_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."task_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "task_model_calls_run_seq" ON "task_model_calls" USING btree ("run_id","seq");--> statement-breakpoint
CREATE INDEX "task_model_calls_task" ON "task_model_calls" USING btree ("task_id");