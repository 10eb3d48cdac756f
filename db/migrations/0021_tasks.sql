CREATE TABLE "task_activities" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"account_id" text NOT NULL,
	"kind" text NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"platform" text,
	"delivery_state" text,
	"run_id" text,
	"file_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tool_name" text,
	"tool_call_id" text,
	"tool_input" jsonb,
	"tool_output" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"account_id" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"trigger" text NOT NULL,
	"model_tier" text NOT NULL,
	"model" text,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"error" text,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"cache_read_tokens" integer DEFAULT 0 NOT NULL,
	"cache_creation_tokens" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"parent_task_id" text,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"model_tier" text NOT NULL,
	"created_by" text DEFAULT 'user' NOT NULL,
	"proposal_status" text,
	"approval_mode" text,
	"summary" text,
	"plan" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"waiting_on_contacts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"alarm_wake_at" timestamp with time zone,
	"alarm_headline" text,
	"alarm_status" text,
	"ready_for_review" boolean DEFAULT false NOT NULL,
	"handled_by_assistant_id" text,
	"scheduled_for" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"feedback" text,
	"skills" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"followers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"on_behalf_of" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tasks_waiting_needs_alarm" CHECK ("tasks"."status" NOT IN ('awaiting_user_input', 'awaiting_non_user_response', 'subtasks_running', 'alarm_set') OR ("tasks"."alarm_status" = 'set' AND "tasks"."alarm_wake_at" IS NOT NULL)),
	CONSTRAINT "tasks_scheduled_needs_time" CHECK ("tasks"."status" <> 'scheduled' OR "tasks"."scheduled_for" IS NOT NULL)
);
--> statement-breakpoint
ALTER TABLE "task_activities" ADD CONSTRAINT "task_activities_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_runs" ADD CONSTRAINT "task_runs_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_parent_task_id_tasks_id_fk" FOREIGN KEY ("parent_task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "task_activities_task_created" ON "task_activities" USING btree ("task_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "task_runs_task_created" ON "task_runs" USING btree ("task_id","created_at");--> statement-breakpoint
CREATE INDEX "task_runs_open" ON "task_runs" USING btree ("task_id") WHERE "task_runs"."status" IN ('queued', 'running');--> statement-breakpoint
CREATE INDEX "tasks_user_created" ON "tasks" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_account_created" ON "tasks" USING btree ("account_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_parent" ON "tasks" USING btree ("parent_task_id");--> statement-breakpoint
CREATE INDEX "tasks_assistant_status" ON "tasks" USING btree ("assistant_id","status");--> statement-breakpoint
CREATE INDEX "tasks_alarm_due" ON "tasks" USING btree ("alarm_wake_at") WHERE "tasks"."alarm_status" = 'set';--> statement-breakpoint
CREATE INDEX "tasks_scheduled_due" ON "tasks" USING btree ("scheduled_for") WHERE "tasks"."status" = 'scheduled';