CREATE TABLE "calendar_push_channels" (
	"id" text PRIMARY KEY NOT NULL,
	"calendar_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"provider" text NOT NULL,
	"channel_id" text NOT NULL,
	"resource_id" text,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"pending_since" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calendar_push_channels" ADD CONSTRAINT "calendar_push_channels_calendar_id_calendars_id_fk" FOREIGN KEY ("calendar_id") REFERENCES "public"."calendars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_push_channels" ADD CONSTRAINT "calendar_push_channels_connection_id_calendar_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."calendar_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_push_channels_calendar" ON "calendar_push_channels" USING btree ("calendar_id");--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_push_channels_channel" ON "calendar_push_channels" USING btree ("provider","channel_id");--> statement-breakpoint
CREATE INDEX "calendar_push_channels_connection" ON "calendar_push_channels" USING btree ("connection_id");