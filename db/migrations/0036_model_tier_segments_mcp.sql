CREATE TABLE "workspace_snapshots" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"taken_at" timestamp with time zone NOT NULL,
	"memory_used_bytes" bigint,
	"memory_total_bytes" bigint,
	"disk_used_bytes" bigint,
	"disk_quota_bytes" bigint,
	"cpu_load_avg" double precision,
	"uptime_seconds" integer
);
--> statement-breakpoint
CREATE TABLE "workspace_usage" (
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"first_started_at" timestamp with time zone NOT NULL,
	"last_started_at" timestamp with time zone NOT NULL,
	"last_active_at" timestamp with time zone NOT NULL,
	"active_seconds" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspace_usage_account_id_user_id_pk" PRIMARY KEY("account_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "account_model_tiers" (
	"account_id" text PRIMARY KEY NOT NULL,
	"chat_model_tier" text,
	"task_model_tier" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "model_tier_segments" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"chat_model_tier" text,
	"task_model_tier" text,
	"organization_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"team_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"user_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_oauth_flows" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"skill_id" text NOT NULL,
	"user_id" text,
	"state" text NOT NULL,
	"sealed" text NOT NULL,
	"return_to" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_tool_calls" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"skill_id" text NOT NULL,
	"tool_name" text NOT NULL,
	"task_id" text,
	"dispatch_id" text,
	"input" jsonb NOT NULL,
	"result" jsonb,
	"is_error" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspace_snapshots" ADD CONSTRAINT "workspace_snapshots_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_snapshots" ADD CONSTRAINT "workspace_snapshots_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_usage" ADD CONSTRAINT "workspace_usage_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_usage" ADD CONSTRAINT "workspace_usage_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_model_tiers" ADD CONSTRAINT "account_model_tiers_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "model_tier_segments" ADD CONSTRAINT "model_tier_segments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_oauth_flows" ADD CONSTRAINT "mcp_oauth_flows_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_tool_calls" ADD CONSTRAINT "mcp_tool_calls_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "workspace_snapshots_user_time" ON "workspace_snapshots" USING btree ("account_id","user_id","taken_at");--> statement-breakpoint
CREATE INDEX "workspace_snapshots_time" ON "workspace_snapshots" USING btree ("taken_at");--> statement-breakpoint
CREATE UNIQUE INDEX "model_tier_segments_account_name" ON "model_tier_segments" USING btree ("account_id","name");--> statement-breakpoint
CREATE INDEX "model_tier_segments_account_created" ON "model_tier_segments" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_oauth_flows_state" ON "mcp_oauth_flows" USING btree ("state");--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_tool_calls_dispatch" ON "mcp_tool_calls" USING btree ("dispatch_id");--> statement-breakpoint
CREATE INDEX "mcp_tool_calls_task" ON "mcp_tool_calls" USING btree ("task_id","created_at");