CREATE TABLE "credit_budget_usage" (
	"budget_id" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"member_user_id" text DEFAULT '' NOT NULL,
	"spent" numeric(20, 6) DEFAULT 0 NOT NULL,
	"reserved" numeric(20, 6) DEFAULT 0 NOT NULL,
	"alerted" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_budget_usage_budget_id_period_start_member_user_id_pk" PRIMARY KEY("budget_id","period_start","member_user_id")
);
--> statement-breakpoint
CREATE TABLE "credit_budgets" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"scope" text NOT NULL,
	"scope_id" text NOT NULL,
	"period" text DEFAULT 'month' NOT NULL,
	"limit_credits" numeric(20, 6) NOT NULL,
	"member_limit_credits" numeric(20, 6),
	"alert_thresholds" integer[] DEFAULT '{50,80,100}'::integer[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"ref" text NOT NULL,
	"amount" numeric(20, 6) NOT NULL,
	"targets" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text DEFAULT 'held' NOT NULL,
	"settled_credits" numeric(20, 6),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "limits" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "task_runs" ADD COLUMN "user_id" text;--> statement-breakpoint
UPDATE "task_runs" r SET "user_id" = t."user_id" FROM "tasks" t WHERE t."id" = r."task_id";--> statement-breakpoint
ALTER TABLE "task_runs" ADD COLUMN "tainted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "task_runs" ADD COLUMN "taint_sources" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "tainted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "taint_sources" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "root_task_id" text;--> statement-breakpoint
ALTER TABLE "cart_dispatches" ADD COLUMN "held_because" jsonb;--> statement-breakpoint
ALTER TABLE "inbound_messages" ADD COLUMN "sender_verified" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "inbound_messages" ADD COLUMN "checks" jsonb;--> statement-breakpoint
ALTER TABLE "inbound_messages" ADD COLUMN "auto_submitted" text;--> statement-breakpoint
ALTER TABLE "credit_budget_usage" ADD CONSTRAINT "credit_budget_usage_budget_id_credit_budgets_id_fk" FOREIGN KEY ("budget_id") REFERENCES "public"."credit_budgets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_budgets" ADD CONSTRAINT "credit_budgets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_reservations" ADD CONSTRAINT "credit_reservations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_budgets_scope" ON "credit_budgets" USING btree ("account_id","scope","scope_id");--> statement-breakpoint
CREATE INDEX "credit_budgets_scope_id" ON "credit_budgets" USING btree ("scope_id");--> statement-breakpoint
CREATE UNIQUE INDEX "credit_reservations_ref" ON "credit_reservations" USING btree ("ref");--> statement-breakpoint
CREATE INDEX "credit_reservations_held" ON "credit_reservations" USING btree ("created_at") WHERE "credit_reservations"."status" = 'held';--> statement-breakpoint
CREATE INDEX "task_runs_user_open" ON "task_runs" USING btree ("user_id","created_at") WHERE "task_runs"."status" IN ('queued', 'running');--> statement-breakpoint
CREATE INDEX "tasks_root" ON "tasks" USING btree ("root_task_id") WHERE "tasks"."root_task_id" IS NOT NULL;