CREATE TABLE "autonomy_exceptions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"label" text NOT NULL,
	"match_kind" text NOT NULL,
	"match_value" text NOT NULL,
	"mode" text NOT NULL,
	"time_boxed_window_min" integer,
	"time_boxed_expiry" text,
	"undo_delay_sec" integer,
	"applies_to" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "autonomy_settings" (
	"user_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"matrix" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "autonomy_exceptions" ADD CONSTRAINT "autonomy_exceptions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autonomy_exceptions" ADD CONSTRAINT "autonomy_exceptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autonomy_settings" ADD CONSTRAINT "autonomy_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autonomy_settings" ADD CONSTRAINT "autonomy_settings_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "autonomy_exceptions_user" ON "autonomy_exceptions" USING btree ("user_id","created_at");