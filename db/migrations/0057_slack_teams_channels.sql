CREATE TABLE "channel_approval_posts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"cart_id" text NOT NULL,
	"user_id" text NOT NULL,
	"provider" text NOT NULL,
	"content_hash" text NOT NULL,
	"state" text DEFAULT 'posting' NOT NULL,
	"ref" jsonb,
	"outcome" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "channel_events" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"app_key" text NOT NULL,
	"external_id" text NOT NULL,
	"account_id" text,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'received' NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"handled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "channel_identities" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"provider" text NOT NULL,
	"workspace_id" text NOT NULL,
	"external_user_id" text NOT NULL,
	"app_id" text,
	"connection_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "slack_app_credentials" (
	"app_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"client_id" text NOT NULL,
	"slack_app_id" text,
	"sealed" text NOT NULL,
	"set_by_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "slack_installations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"app_id" text NOT NULL,
	"team_id" text NOT NULL,
	"bot_user_id" text,
	"bot_token" text NOT NULL,
	"installed_by_user_id" text,
	"connection_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "teams_conversations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"aad_object_id" text NOT NULL,
	"teams_user_id" text NOT NULL,
	"bot_id" text NOT NULL,
	"conversation_id" text NOT NULL,
	"service_url" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "channel_approval_posts" ADD CONSTRAINT "channel_approval_posts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_approval_posts" ADD CONSTRAINT "channel_approval_posts_cart_id_carts_id_fk" FOREIGN KEY ("cart_id") REFERENCES "public"."carts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_identities" ADD CONSTRAINT "channel_identities_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_identities" ADD CONSTRAINT "channel_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_app_credentials" ADD CONSTRAINT "slack_app_credentials_app_id_slack_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."slack_apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_app_credentials" ADD CONSTRAINT "slack_app_credentials_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_installations" ADD CONSTRAINT "slack_installations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_installations" ADD CONSTRAINT "slack_installations_app_id_slack_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."slack_apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_conversations" ADD CONSTRAINT "teams_conversations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_conversations" ADD CONSTRAINT "teams_conversations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "channel_approval_posts_version" ON "channel_approval_posts" USING btree ("cart_id","provider","content_hash");--> statement-breakpoint
CREATE INDEX "channel_approval_posts_cart" ON "channel_approval_posts" USING btree ("cart_id");--> statement-breakpoint
CREATE UNIQUE INDEX "channel_events_external" ON "channel_events" USING btree ("provider","app_key","external_id");--> statement-breakpoint
CREATE INDEX "channel_events_pending" ON "channel_events" USING btree ("created_at") WHERE "channel_events"."status" = 'received';--> statement-breakpoint
CREATE UNIQUE INDEX "channel_identities_external" ON "channel_identities" USING btree ("account_id","provider","workspace_id","external_user_id");--> statement-breakpoint
CREATE INDEX "channel_identities_user" ON "channel_identities" USING btree ("user_id","provider");--> statement-breakpoint
CREATE UNIQUE INDEX "slack_installations_app_team" ON "slack_installations" USING btree ("app_id","team_id");--> statement-breakpoint
CREATE UNIQUE INDEX "teams_conversations_user" ON "teams_conversations" USING btree ("account_id","user_id");