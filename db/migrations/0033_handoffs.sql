CREATE TABLE "handoff_session_links" (
	"id" text PRIMARY KEY NOT NULL,
	"handoff_id" text NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "handoffs" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"task_id" text,
	"run_id" text,
	"action_type" text NOT NULL,
	"prompt" text DEFAULT '' NOT NULL,
	"target_url" text,
	"screenshot_url" text,
	"status" text NOT NULL,
	"close_reason" text,
	"url_source" text DEFAULT 'claimed' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"message" text,
	"deferred_until" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"reported_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "handoffs_closed_at" CHECK (("handoffs"."status" in ('pending','starting','ready','active')) = ("handoffs"."closed_at" is null))
);
--> statement-breakpoint
CREATE TABLE "workspace_controls" (
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"generation" integer DEFAULT 0 NOT NULL,
	"operator" text DEFAULT 'agent' NOT NULL,
	"handoff_id" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspace_controls_account_id_user_id_pk" PRIMARY KEY("account_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "handoff_session_links" ADD CONSTRAINT "handoff_session_links_handoff_id_handoffs_id_fk" FOREIGN KEY ("handoff_id") REFERENCES "public"."handoffs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "handoff_session_links" ADD CONSTRAINT "handoff_session_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "handoffs" ADD CONSTRAINT "handoffs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "handoffs" ADD CONSTRAINT "handoffs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "handoffs" ADD CONSTRAINT "handoffs_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "handoffs" ADD CONSTRAINT "handoffs_run_id_task_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."task_runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_controls" ADD CONSTRAINT "workspace_controls_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_controls" ADD CONSTRAINT "workspace_controls_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_controls" ADD CONSTRAINT "workspace_controls_handoff_id_handoffs_id_fk" FOREIGN KEY ("handoff_id") REFERENCES "public"."handoffs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "handoff_session_links_token" ON "handoff_session_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "handoff_session_links_handoff" ON "handoff_session_links" USING btree ("handoff_id");--> statement-breakpoint
CREATE INDEX "handoffs_user_open" ON "handoffs" USING btree ("account_id","user_id","created_at") WHERE "handoffs"."closed_at" is null;--> statement-breakpoint
CREATE INDEX "handoffs_task" ON "handoffs" USING btree ("task_id");