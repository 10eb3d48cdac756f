CREATE TABLE "channel_threads" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"channel" text NOT NULL,
	"external_ref" text NOT NULL,
	"direction" text NOT NULL,
	"chat_id" text,
	"task_id" text,
	"notice_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notices" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"dedupe_key" text NOT NULL,
	"task_id" text,
	"cart_id" text,
	"handoff_id" text,
	"urgent" boolean DEFAULT false NOT NULL,
	"channel" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"due_at" timestamp with time zone DEFAULT now() NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"link_path" text NOT NULL,
	"link_token_hash" text,
	"link_expires_at" timestamp with time zone,
	"link_used_at" timestamp with time zone,
	"provider_message_id" text,
	"error" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "channel_threads" ADD CONSTRAINT "channel_threads_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_threads" ADD CONSTRAINT "channel_threads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notices" ADD CONSTRAINT "notices_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notices" ADD CONSTRAINT "notices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "channel_threads_ref" ON "channel_threads" USING btree ("account_id","channel","external_ref");--> statement-breakpoint
CREATE INDEX "channel_threads_chat" ON "channel_threads" USING btree ("chat_id");--> statement-breakpoint
CREATE UNIQUE INDEX "notices_dedupe" ON "notices" USING btree ("account_id","dedupe_key");--> statement-breakpoint
CREATE INDEX "notices_due" ON "notices" USING btree ("due_at") WHERE "notices"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "notices_link" ON "notices" USING btree ("link_token_hash") WHERE "notices"."link_token_hash" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "notices_user" ON "notices" USING btree ("user_id","created_at");