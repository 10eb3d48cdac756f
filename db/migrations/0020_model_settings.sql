CREATE TABLE "model_settings" (
	"account_id" text NOT NULL,
	"tier" text NOT NULL,
	"model" text NOT NULL,
	"base_url" text,
	"api_key_sealed" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "model_settings_account_id_tier_pk" PRIMARY KEY("account_id","tier"),
	CONSTRAINT "model_settings_key_needs_base_url" CHECK ("model_settings"."api_key_sealed" IS NULL OR "model_settings"."base_url" IS NOT NULL)
);
--> statement-breakpoint
ALTER TABLE "model_settings" ADD CONSTRAINT "model_settings_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;