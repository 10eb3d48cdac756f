CREATE TABLE "voice_calls" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"user_id" text,
	"direction" text NOT NULL,
	"provider" text DEFAULT 'twilio' NOT NULL,
	"call_sid" text,
	"intent_key" text,
	"from_number" text NOT NULL,
	"to_number" text NOT NULL,
	"caller" text,
	"caller_verified" boolean DEFAULT false NOT NULL,
	"status" text NOT NULL,
	"outcome" text,
	"answered_by" text,
	"chat_id" text,
	"task_id" text,
	"dispatch_id" text,
	"purpose" text,
	"script" text,
	"transcript" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"exchanges" integer DEFAULT 0 NOT NULL,
	"duration_sec" integer,
	"reason" text,
	"reported_activity_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "voice_calls" ADD CONSTRAINT "voice_calls_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "voice_calls_call_sid" ON "voice_calls" USING btree ("call_sid") WHERE "voice_calls"."call_sid" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "voice_calls_intent" ON "voice_calls" USING btree ("intent_key") WHERE "voice_calls"."intent_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "voice_calls_dispatch" ON "voice_calls" USING btree ("dispatch_id");--> statement-breakpoint
CREATE INDEX "voice_calls_assistant" ON "voice_calls" USING btree ("assistant_id","created_at");