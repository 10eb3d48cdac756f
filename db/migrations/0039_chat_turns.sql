CREATE TABLE "chat_model_calls" (
	"id" text PRIMARY KEY NOT NULL,
	"chat_id" text NOT NULL,
	"turn_id" text NOT NULL,
	"account_id" text NOT NULL,
	"seq" integer NOT NULL,
	"model_tier" text NOT NULL,
	"model" text,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"cache_read_tokens" integer DEFAULT 0 NOT NULL,
	"cache_creation_tokens" integer DEFAULT 0 NOT NULL,
	"charged_credits" numeric(20, 6) DEFAULT 0 NOT NULL,
	"is_billable" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_tool_calls" (
	"id" text PRIMARY KEY NOT NULL,
	"turn_id" text NOT NULL,
	"chat_id" text NOT NULL,
	"account_id" text NOT NULL,
	"step" integer NOT NULL,
	"position" integer NOT NULL,
	"call_id" text NOT NULL,
	"tool_name" text NOT NULL,
	"input" jsonb NOT NULL,
	"output" jsonb,
	"task_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_turn_events" (
	"turn_id" text NOT NULL,
	"seq" integer NOT NULL,
	"kind" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_turn_events_turn_id_seq_pk" PRIMARY KEY("turn_id","seq")
);
--> statement-breakpoint
CREATE TABLE "chat_turns" (
	"id" text PRIMARY KEY NOT NULL,
	"chat_id" text NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"message_id" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"model_tier" text NOT NULL,
	"error" jsonb,
	"task_ids" text[] DEFAULT '{}' NOT NULL,
	"reply_message_id" text,
	"last_seq" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "chat_model_calls" ADD CONSTRAINT "chat_model_calls_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_model_calls" ADD CONSTRAINT "chat_model_calls_turn_id_chat_turns_id_fk" FOREIGN KEY ("turn_id") REFERENCES "public"."chat_turns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_tool_calls" ADD CONSTRAINT "chat_tool_calls_turn_id_chat_turns_id_fk" FOREIGN KEY ("turn_id") REFERENCES "public"."chat_turns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_turn_events" ADD CONSTRAINT "chat_turn_events_turn_id_chat_turns_id_fk" FOREIGN KEY ("turn_id") REFERENCES "public"."chat_turns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_turns" ADD CONSTRAINT "chat_turns_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_turns" ADD CONSTRAINT "chat_turns_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_turns" ADD CONSTRAINT "chat_turns_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "chat_model_calls_turn_seq" ON "chat_model_calls" USING btree ("turn_id","seq");--> statement-breakpoint
CREATE INDEX "chat_model_calls_chat" ON "chat_model_calls" USING btree ("chat_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_tool_calls_turn_step" ON "chat_tool_calls" USING btree ("turn_id","step","position");--> statement-breakpoint
CREATE INDEX "chat_tool_calls_chat" ON "chat_tool_calls" USING btree ("chat_id");--> statement-breakpoint
CREATE INDEX "chat_turn_events_created" ON "chat_turn_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "chat_turns_chat" ON "chat_turns" USING btree ("chat_id","created_at");