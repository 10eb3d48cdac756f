CREATE TABLE "contact_addresses" (
	"contact_id" text NOT NULL,
	"user_id" text NOT NULL,
	"address" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contact_relationships" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"from_contact_id" text NOT NULL,
	"to_contact_id" text NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"name" text,
	"preferred_name" text,
	"email" text NOT NULL,
	"emails" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"phones" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"imessage_capable" boolean,
	"company" jsonb,
	"title" text,
	"timezone" text,
	"tz_offset" text,
	"photo_url" text,
	"website" text,
	"booking_link" text,
	"social" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"address" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"enriched_at" timestamp with time zone,
	"last_contacted_at" timestamp with time zone,
	"source" jsonb,
	"external_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"inherit_company_priority" boolean DEFAULT false NOT NULL,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"introduced_by" text,
	"scope" text DEFAULT 'user' NOT NULL,
	"team_id" text,
	"status" text DEFAULT 'active' NOT NULL,
	"consumer_email" text,
	"assistant" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "contact_addresses" ADD CONSTRAINT "contact_addresses_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_relationships" ADD CONSTRAINT "contact_relationships_from_contact_id_contacts_id_fk" FOREIGN KEY ("from_contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_relationships" ADD CONSTRAINT "contact_relationships_to_contact_id_contacts_id_fk" FOREIGN KEY ("to_contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "contact_addresses_user_address" ON "contact_addresses" USING btree ("user_id","address");--> statement-breakpoint
CREATE INDEX "contact_addresses_contact" ON "contact_addresses" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "contact_relationships_from" ON "contact_relationships" USING btree ("from_contact_id");--> statement-breakpoint
CREATE INDEX "contact_relationships_to" ON "contact_relationships" USING btree ("to_contact_id");--> statement-breakpoint
CREATE INDEX "contacts_user_created" ON "contacts" USING btree ("user_id","created_at");