CREATE TABLE "skills" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"owner_user_id" text,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"title" text,
	"description" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"instructions" text,
	"triggers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"schedule_type" text,
	"max_runs" integer,
	"recurrence_ends_at" timestamp with time zone,
	"max_concurrent" integer,
	"cooldown_ms" integer,
	"overflow_behavior" text DEFAULT 'queue' NOT NULL,
	"run_count" integer DEFAULT 0 NOT NULL,
	"last_fired_at" timestamp with time zone,
	"mcp_server_url" text,
	"mcp_transport" text,
	"mcp_auth_type" text,
	"mcp_secret_sealed" text,
	"mcp_server_info" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_firings" (
	"id" text PRIMARY KEY NOT NULL,
	"skill_id" text NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"trigger_kind" text NOT NULL,
	"event_key" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"reason" text,
	"task_id" text,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"due_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_trigger_state" (
	"skill_id" text NOT NULL,
	"trigger_key" text NOT NULL,
	"account_id" text NOT NULL,
	"state" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"next_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_trigger_state_skill_id_trigger_key_pk" PRIMARY KEY("skill_id","trigger_key")
);
--> statement-breakpoint
ALTER TABLE "skills" ADD CONSTRAINT "skills_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skills" ADD CONSTRAINT "skills_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_firings" ADD CONSTRAINT "workflow_firings_skill_id_skills_id_fk" FOREIGN KEY ("skill_id") REFERENCES "public"."skills"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_trigger_state" ADD CONSTRAINT "workflow_trigger_state_skill_id_skills_id_fk" FOREIGN KEY ("skill_id") REFERENCES "public"."skills"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "skills_account_owner_name" ON "skills" USING btree ("account_id",coalesce("owner_user_id", ''),"name");--> statement-breakpoint
CREATE INDEX "skills_account_kind" ON "skills" USING btree ("account_id","kind","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_firings_event" ON "workflow_firings" USING btree ("skill_id","event_key");--> statement-breakpoint
CREATE INDEX "workflow_firings_skill_status" ON "workflow_firings" USING btree ("skill_id","status","created_at");--> statement-breakpoint
CREATE INDEX "workflow_trigger_state_next" ON "workflow_trigger_state" USING btree ("next_at");