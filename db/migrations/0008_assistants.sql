CREATE TABLE "assistants" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"scope" text DEFAULT 'account' NOT NULL,
	"organization_id" text,
	"team_id" text,
	"user_id" text,
	"name" text NOT NULL,
	"email" text,
	"avatar_url" text,
	"signature" text,
	"signature_editor_mode" text,
	"personality" text,
	"tagline" text,
	"backstory" text,
	"role" text,
	"display_personality" text,
	"gender" text,
	"pronouns" text,
	"country" text,
	"signature_phrases" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"writing_style" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"voice" jsonb,
	"status" text DEFAULT 'active' NOT NULL,
	"talk_to_strangers" boolean DEFAULT true NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"inbox_platform" text,
	"inbox_auth_error" boolean DEFAULT false NOT NULL,
	"channels" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"appearance_description" text DEFAULT '' NOT NULL,
	"tags" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"deleted_at" timestamp with time zone,
	"retired_email" text,
	"email_released_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "roster_entries" (
	"user_id" text NOT NULL,
	"assistant_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "roster_entries_user_id_assistant_id_pk" PRIMARY KEY("user_id","assistant_id")
);
--> statement-breakpoint
ALTER TABLE "assistants" ADD CONSTRAINT "assistants_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "roster_entries" ADD CONSTRAINT "roster_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "roster_entries" ADD CONSTRAINT "roster_entries_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "assistants_account_email" ON "assistants" USING btree ("account_id","email") WHERE "assistants"."email" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "assistants_account" ON "assistants" USING btree ("account_id");