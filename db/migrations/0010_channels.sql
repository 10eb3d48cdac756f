CREATE TABLE "oauth_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"provider" text NOT NULL,
	"purpose" text NOT NULL,
	"user_id" text,
	"assistant_id" text,
	"target" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"tokens" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "phone_line_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"requested_channels" jsonb NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"dismissal_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "slack_apps" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"kind" text NOT NULL,
	"user_id" text,
	"bot_display_name" text NOT NULL,
	"status" text DEFAULT 'pending_credentials' NOT NULL,
	"manifest" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_connections" ADD CONSTRAINT "oauth_connections_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_line_requests" ADD CONSTRAINT "phone_line_requests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_line_requests" ADD CONSTRAINT "phone_line_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_apps" ADD CONSTRAINT "slack_apps_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_apps" ADD CONSTRAINT "slack_apps_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "phone_line_requests_user" ON "phone_line_requests" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "phone_line_requests_one_pending" ON "phone_line_requests" USING btree ("user_id") WHERE "phone_line_requests"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "slack_apps_assistant_kind_user" ON "slack_apps" USING btree ("assistant_id","kind","user_id");