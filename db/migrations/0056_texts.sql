CREATE TABLE "inbound_texts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"provider" text NOT NULL,
	"channel" text NOT NULL,
	"provider_message_id" text NOT NULL,
	"from_number" text NOT NULL,
	"to_number" text NOT NULL,
	"group_key" text,
	"participants" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"media" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"keyword" text,
	"status" text DEFAULT 'unmatched' NOT NULL,
	"reason" text,
	"chat_id" text,
	"task_id" text,
	"activity_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbound_texts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text,
	"provider" text NOT NULL,
	"channel" text NOT NULL,
	"purpose" text NOT NULL,
	"intent_key" text NOT NULL,
	"from_number" text NOT NULL,
	"to_number" text NOT NULL,
	"provider_message_id" text,
	"status" text DEFAULT 'sending' NOT NULL,
	"error_code" text,
	"reason" text,
	"dispatch_id" text,
	"caller_ref" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "phone_lines" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"request_id" text,
	"number" text NOT NULL,
	"channels" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"source" text NOT NULL,
	"provider_sid" text,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"released_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "text_approval_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"cart_id" text NOT NULL,
	"content_hash" text NOT NULL,
	"code_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "text_opt_outs" (
	"sender_number" text NOT NULL,
	"counterpart" text NOT NULL,
	"account_id" text NOT NULL,
	"channel" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "text_opt_outs_sender_number_counterpart_pk" PRIMARY KEY("sender_number","counterpart")
);
--> statement-breakpoint
ALTER TABLE "inbound_texts" ADD CONSTRAINT "inbound_texts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbound_texts" ADD CONSTRAINT "outbound_texts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_lines" ADD CONSTRAINT "phone_lines_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_lines" ADD CONSTRAINT "phone_lines_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_approval_codes" ADD CONSTRAINT "text_approval_codes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_approval_codes" ADD CONSTRAINT "text_approval_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_opt_outs" ADD CONSTRAINT "text_opt_outs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "inbound_texts_provider_id" ON "inbound_texts" USING btree ("provider","provider_message_id");--> statement-breakpoint
CREATE INDEX "inbound_texts_window" ON "inbound_texts" USING btree ("to_number","from_number","channel","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_texts_intent" ON "outbound_texts" USING btree ("intent_key");--> statement-breakpoint
CREATE INDEX "outbound_texts_provider_id" ON "outbound_texts" USING btree ("provider_message_id");--> statement-breakpoint
CREATE INDEX "outbound_texts_dispatch" ON "outbound_texts" USING btree ("dispatch_id");--> statement-breakpoint
CREATE UNIQUE INDEX "phone_lines_number_active" ON "phone_lines" USING btree ("number") WHERE "phone_lines"."status" = 'active';--> statement-breakpoint
CREATE INDEX "phone_lines_assistant" ON "phone_lines" USING btree ("assistant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "text_approval_codes_version" ON "text_approval_codes" USING btree ("cart_id","content_hash");--> statement-breakpoint
CREATE INDEX "text_approval_codes_user" ON "text_approval_codes" USING btree ("user_id","code_hash");