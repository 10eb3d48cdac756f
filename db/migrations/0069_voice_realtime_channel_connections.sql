CREATE TABLE "channel_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"channel" text NOT NULL,
	"external_id" text NOT NULL,
	"name" text,
	"sealed" text NOT NULL,
	"link_code_hash" text,
	"link_code_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "voice_calls" ADD COLUMN "media" text DEFAULT 'turns' NOT NULL;--> statement-breakpoint
ALTER TABLE "voice_calls" ADD COLUMN "stream_sid" text;--> statement-breakpoint
ALTER TABLE "voice_calls" ADD COLUMN "terms" jsonb;--> statement-breakpoint
ALTER TABLE "voice_calls" ADD COLUMN "summary" text;--> statement-breakpoint
ALTER TABLE "voice_calls" ADD COLUMN "commitments" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "voice_calls" ADD COLUMN "referrals" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "voice_calls" ADD COLUMN "status_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "channel_connections" ADD CONSTRAINT "channel_connections_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_connections" ADD CONSTRAINT "channel_connections_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "channel_connections_external" ON "channel_connections" USING btree ("channel","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "channel_connections_assistant" ON "channel_connections" USING btree ("assistant_id","channel");--> statement-breakpoint
CREATE INDEX "channel_connections_account" ON "channel_connections" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "voice_calls_open" ON "voice_calls" USING btree ("created_at") WHERE "voice_calls"."ended_at" IS NULL;