CREATE TABLE "mailbox_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"mailbox_id" text NOT NULL,
	"user_id" text NOT NULL,
	"provider_message_id" text NOT NULL,
	"internet_message_id" text,
	"from_address" text,
	"sender_verified" boolean DEFAULT false NOT NULL,
	"subject" text,
	"status" text NOT NULL,
	"reason" text,
	"task_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mailbox_sends" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"dispatch_id" text NOT NULL,
	"provider" text NOT NULL,
	"address" text NOT NULL,
	"provider_message_id" text,
	"internet_message_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mailboxes" (
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
	"cursor" text,
	"subscription_id" text,
	"subscription_expires_at" timestamp with time zone,
	"client_state_hash" text,
	"sync_lease_until" timestamp with time zone,
	"last_synced_at" timestamp with time zone,
	"last_sync_error" text,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mailbox_messages" ADD CONSTRAINT "mailbox_messages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mailbox_messages" ADD CONSTRAINT "mailbox_messages_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mailbox_sends" ADD CONSTRAINT "mailbox_sends_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mailboxes" ADD CONSTRAINT "mailboxes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mailboxes" ADD CONSTRAINT "mailboxes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mailbox_messages_provider_id" ON "mailbox_messages" USING btree ("mailbox_id","provider_message_id");--> statement-breakpoint
CREATE INDEX "mailbox_messages_account" ON "mailbox_messages" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "mailbox_sends_dispatch" ON "mailbox_sends" USING btree ("dispatch_id");--> statement-breakpoint
CREATE UNIQUE INDEX "mailboxes_user" ON "mailboxes" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "mailboxes_subscription" ON "mailboxes" USING btree ("subscription_id") WHERE "mailboxes"."subscription_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "mailboxes_sync" ON "mailboxes" USING btree ("last_synced_at");