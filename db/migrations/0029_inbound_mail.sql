CREATE TABLE "inbound_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"recipient" text NOT NULL,
	"status" text DEFAULT 'unmatched' NOT NULL,
	"reason" text,
	"task_id" text,
	"activity_id" text,
	"message_id" text,
	"in_reply_to" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"references" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"from_address" text NOT NULL,
	"from_name" text,
	"to_addresses" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"cc_addresses" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"text_body" text DEFAULT '' NOT NULL,
	"html_body" text,
	"attachments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"mail_from" text,
	"remote_ip" text NOT NULL,
	"helo" text,
	"size_bytes" integer NOT NULL,
	"spf" text NOT NULL,
	"dkim" text NOT NULL,
	"dmarc" text NOT NULL,
	"auth" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "inbound_messages" ADD CONSTRAINT "inbound_messages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_messages" ADD CONSTRAINT "inbound_messages_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "inbound_messages_assistant_message_id" ON "inbound_messages" USING btree ("assistant_id","message_id") WHERE "inbound_messages"."message_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "inbound_messages_assistant_status" ON "inbound_messages" USING btree ("assistant_id","status","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "inbound_messages_task" ON "inbound_messages" USING btree ("task_id");