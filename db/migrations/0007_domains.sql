CREATE TABLE "organization_domains" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"domain" text NOT NULL,
	"source" text DEFAULT 'manual' NOT NULL,
	"verified" boolean DEFAULT false NOT NULL,
	"auto_join" boolean DEFAULT false NOT NULL,
	"txt_record_value" text NOT NULL,
	"verified_at" timestamp with time zone,
	"last_checked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organization_domains" ADD CONSTRAINT "organization_domains_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_domains" ADD CONSTRAINT "organization_domains_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "organization_domains_account_domain" ON "organization_domains" USING btree ("account_id","domain");--> statement-breakpoint
CREATE INDEX "organization_domains_org" ON "organization_domains" USING btree ("organization_id");