CREATE TABLE "calendar_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"provider" text NOT NULL,
	"address" text NOT NULL,
	"tokens" text NOT NULL,
	"token_expires_at" timestamp with time zone,
	"scopes" text DEFAULT '' NOT NULL,
	"auth_error" boolean DEFAULT false NOT NULL,
	"auth_error_reason" text,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calendar_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"provider" text NOT NULL,
	"url" text,
	"username" text,
	"secret" text,
	"grant_id" text,
	"status" text DEFAULT 'active' NOT NULL,
	"last_synced_at" timestamp with time zone,
	"last_sync_error" text,
	"failing_since" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calendar_events" (
	"id" text PRIMARY KEY NOT NULL,
	"calendar_id" text NOT NULL,
	"user_id" text NOT NULL,
	"provider_event_id" text NOT NULL,
	"uid" text,
	"etag" text,
	"status" text DEFAULT 'confirmed' NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"description" text,
	"location" text,
	"start" timestamp with time zone NOT NULL,
	"end" timestamp with time zone NOT NULL,
	"all_day" boolean DEFAULT false NOT NULL,
	"timezone" text,
	"attendees" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"organizer" text,
	"recurrence" text[],
	"recurrence_of" text,
	"original_start" timestamp with time zone,
	"url" text,
	"range_end" timestamp with time zone,
	"made_by_assistant" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calendars" (
	"id" text PRIMARY KEY NOT NULL,
	"connection_id" text NOT NULL,
	"user_id" text NOT NULL,
	"remote_id" text NOT NULL,
	"name" text NOT NULL,
	"color" text,
	"timezone" text,
	"read_only" boolean DEFAULT false NOT NULL,
	"primary" boolean DEFAULT false NOT NULL,
	"sync_cursor" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calendar_grants" ADD CONSTRAINT "calendar_grants_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_grants" ADD CONSTRAINT "calendar_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_connections" ADD CONSTRAINT "calendar_connections_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_connections" ADD CONSTRAINT "calendar_connections_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_connections" ADD CONSTRAINT "calendar_connections_grant_id_calendar_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."calendar_grants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_events" ADD CONSTRAINT "calendar_events_calendar_id_calendars_id_fk" FOREIGN KEY ("calendar_id") REFERENCES "public"."calendars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_events" ADD CONSTRAINT "calendar_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendars" ADD CONSTRAINT "calendars_connection_id_calendar_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."calendar_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendars" ADD CONSTRAINT "calendars_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_grants_user_account" ON "calendar_grants" USING btree ("user_id","provider","address");--> statement-breakpoint
CREATE INDEX "calendar_grants_account" ON "calendar_grants" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "calendar_connections_user" ON "calendar_connections" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "calendar_connections_due" ON "calendar_connections" USING btree ("last_synced_at");--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_events_calendar_remote" ON "calendar_events" USING btree ("calendar_id","provider_event_id");--> statement-breakpoint
CREATE INDEX "calendar_events_user_window" ON "calendar_events" USING btree ("user_id","start","range_end");--> statement-breakpoint
CREATE INDEX "calendar_events_uid" ON "calendar_events" USING btree ("calendar_id","uid");--> statement-breakpoint
CREATE UNIQUE INDEX "calendars_connection_remote" ON "calendars" USING btree ("connection_id","remote_id");--> statement-breakpoint
CREATE INDEX "calendars_user" ON "calendars" USING btree ("user_id");