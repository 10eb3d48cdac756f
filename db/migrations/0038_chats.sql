CREATE TABLE "chat_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"chat_id" text NOT NULL,
	"account_id" text NOT NULL,
	"reference_id" text,
	"role" text NOT NULL,
	"from" text,
	"to" text[] DEFAULT '{}' NOT NULL,
	"cc" text[] DEFAULT '{}' NOT NULL,
	"subject" text,
	"platform" text DEFAULT 'chat' NOT NULL,
	"content" text NOT NULL,
	"files" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"delivery_state" text DEFAULT 'internal' NOT NULL,
	"delivery_task_id" text,
	"delivery_cart_id" text,
	"turn_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chats" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"title" text,
	"status" text DEFAULT 'active' NOT NULL,
	"platform" text DEFAULT 'chat' NOT NULL,
	"participants" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"message_count" integer DEFAULT 0 NOT NULL,
	"last_message_at" timestamp with time zone,
	"activity_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_for_task_id" text,
	"tags" text[] DEFAULT '{}' NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"model_tier" text NOT NULL,
	"effort" text,
	"thread_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_messages_chat" ON "chat_messages" USING btree ("chat_id","created_at","id");--> statement-breakpoint
CREATE INDEX "chats_user_activity" ON "chats" USING btree ("user_id","activity_at","id");--> statement-breakpoint
CREATE INDEX "chats_account_activity" ON "chats" USING btree ("account_id","activity_at","id");--> statement-breakpoint
CREATE INDEX "chats_title_trgm" ON "chats" USING gin (lower(coalesce("title", '')) gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "chats_thread" ON "chats" USING btree ("assistant_id","platform","thread_key") WHERE "chats"."thread_key" IS NOT NULL;