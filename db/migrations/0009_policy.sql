CREATE TABLE "policy_settings" (
	"level" text NOT NULL,
	"owner_id" text NOT NULL,
	"account_id" text NOT NULL,
	"capabilities" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"matrix" jsonb,
	"preset" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "policy_settings_level_owner_id_pk" PRIMARY KEY("level","owner_id")
);
