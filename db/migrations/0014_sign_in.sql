CREATE TABLE "portal_verification_tokens" (
	"account_id" text NOT NULL,
	"identifier" text NOT NULL,
	"token" text NOT NULL,
	"expires" timestamp with time zone NOT NULL,
	CONSTRAINT "portal_verification_tokens_account_id_identifier_token_pk" PRIMARY KEY("account_id","identifier","token")
);
--> statement-breakpoint
CREATE TABLE "saml_assertions_seen" (
	"organization_id" text NOT NULL,
	"assertion_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "saml_assertions_seen_organization_id_assertion_id_pk" PRIMARY KEY("organization_id","assertion_id")
);
--> statement-breakpoint
CREATE TABLE "saml_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"return_to" text DEFAULT '/' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "portal_verification_tokens" ADD CONSTRAINT "portal_verification_tokens_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saml_requests" ADD CONSTRAINT "saml_requests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "saml_assertions_seen_expiry" ON "saml_assertions_seen" USING btree ("expires_at");