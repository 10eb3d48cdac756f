CREATE TABLE "scim_user_extensions" (
	"user_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"enterprise" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "scim_user_extensions" ADD CONSTRAINT "scim_user_extensions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;