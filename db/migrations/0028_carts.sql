CREATE TABLE "cart_dispatch_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"dispatch_id" text NOT NULL,
	"cart_id" text NOT NULL,
	"account_id" text NOT NULL,
	"seq" integer NOT NULL,
	"content" jsonb NOT NULL,
	"edited_by_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cart_dispatches" (
	"id" text PRIMARY KEY NOT NULL,
	"cart_id" text NOT NULL,
	"account_id" text NOT NULL,
	"index" integer NOT NULL,
	"type" text NOT NULL,
	"platform" text NOT NULL,
	"action_type" text NOT NULL,
	"edited_by_user" boolean DEFAULT false NOT NULL,
	"current_version_id" text,
	"delivery_state" text DEFAULT 'staged' NOT NULL,
	"provider_message_id" text,
	"failure_reason" text,
	"hold_until" timestamp with time zone,
	"executed_at" timestamp with time zone,
	"removed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "carts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"task_id" text NOT NULL,
	"run_id" text NOT NULL,
	"user_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"resolved_approval_mode" text,
	"time_boxed_expires_at" timestamp with time zone,
	"time_boxed_expiry" text,
	"undo_delay_sec" integer,
	"content_hash" text NOT NULL,
	"reason" text,
	"resolved_at" timestamp with time zone,
	"resolved_by_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "carts_time_boxed_needs_window" CHECK ("carts"."status" <> 'time_boxed' OR ("carts"."time_boxed_expires_at" IS NOT NULL AND "carts"."time_boxed_expiry" IS NOT NULL))
);
--> statement-breakpoint
ALTER TABLE "cart_dispatch_versions" ADD CONSTRAINT "cart_dispatch_versions_dispatch_id_cart_dispatches_id_fk" FOREIGN KEY ("dispatch_id") REFERENCES "public"."cart_dispatches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cart_dispatches" ADD CONSTRAINT "cart_dispatches_cart_id_carts_id_fk" FOREIGN KEY ("cart_id") REFERENCES "public"."carts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carts" ADD CONSTRAINT "carts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carts" ADD CONSTRAINT "carts_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carts" ADD CONSTRAINT "carts_run_id_task_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."task_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carts" ADD CONSTRAINT "carts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cart_dispatch_versions_seq" ON "cart_dispatch_versions" USING btree ("dispatch_id","seq");--> statement-breakpoint
CREATE INDEX "cart_dispatch_versions_cart" ON "cart_dispatch_versions" USING btree ("cart_id");--> statement-breakpoint
CREATE UNIQUE INDEX "cart_dispatches_cart_index" ON "cart_dispatches" USING btree ("cart_id","index");--> statement-breakpoint
CREATE UNIQUE INDEX "carts_run_open" ON "carts" USING btree ("run_id") WHERE "carts"."status" = 'open';--> statement-breakpoint
CREATE INDEX "carts_user_status_created" ON "carts" USING btree ("user_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "carts_task" ON "carts" USING btree ("task_id","created_at" DESC NULLS LAST);