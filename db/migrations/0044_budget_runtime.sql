CREATE TABLE "credit_blocked_tasks" (
	"task_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"budget_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_estimates" (
	"account_id" text NOT NULL,
	"model_tier" text NOT NULL,
	"credits" numeric(20, 6) NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_estimates_account_id_model_tier_pk" PRIMARY KEY("account_id","model_tier")
);
--> statement-breakpoint
CREATE TABLE "run_slot_waits" (
	"run_id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "credit_budget_usage" ADD COLUMN "granted" numeric(20, 6) DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_blocked_tasks" ADD CONSTRAINT "credit_blocked_tasks_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_estimates" ADD CONSTRAINT "credit_estimates_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_slot_waits" ADD CONSTRAINT "run_slot_waits_run_id_task_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."task_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_blocked_tasks_account_user" ON "credit_blocked_tasks" USING btree ("account_id","user_id");--> statement-breakpoint
CREATE INDEX "run_slot_waits_user" ON "run_slot_waits" USING btree ("user_id");