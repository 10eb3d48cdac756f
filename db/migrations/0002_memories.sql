CREATE TABLE "memories" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"kind" text DEFAULT 'unstructured' NOT NULL,
	"resource_type" text,
	"tags" jsonb NOT NULL,
	"content" text,
	"data" jsonb,
	"source" text DEFAULT 'user' NOT NULL,
	"scope" text DEFAULT 'user' NOT NULL,
	"visibility" text DEFAULT 'all' NOT NULL,
	"assistant_id" text,
	"team_id" text,
	"start_date" timestamp with time zone,
	"end_date" timestamp with time zone,
	"pinned" boolean DEFAULT false NOT NULL,
	"internal" boolean DEFAULT false NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "memories" ADD CONSTRAINT "memories_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memories" ADD CONSTRAINT "memories_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memories_user_created" ON "memories" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "memories_team" ON "memories" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "memories_tags" ON "memories" USING gin ("tags");