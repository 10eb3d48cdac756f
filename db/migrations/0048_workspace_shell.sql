CREATE TABLE "workspace_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"task_id" text,
	"run_id" text,
	"kind" text NOT NULL,
	"command" text,
	"coding" jsonb,
	"status" text DEFAULT 'running' NOT NULL,
	"exit_code" integer,
	"output_tail" text DEFAULT '' NOT NULL,
	"progress" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"result" jsonb,
	"error" text,
	"charged_credits" double precision DEFAULT 0 NOT NULL,
	"runner" text NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "workspace_jobs" ADD CONSTRAINT "workspace_jobs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_jobs" ADD CONSTRAINT "workspace_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "workspace_jobs_user" ON "workspace_jobs" USING btree ("account_id","user_id","created_at");--> statement-breakpoint
CREATE INDEX "workspace_jobs_task" ON "workspace_jobs" USING btree ("task_id");