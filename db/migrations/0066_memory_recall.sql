CREATE TABLE "memory_embedding_queue" (
	"memory_id" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"not_before" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "memory_embeddings" (
	"memory_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"team_id" text,
	"model" text NOT NULL,
	"vector" real[] NOT NULL,
	"buckets" integer[] NOT NULL,
	"source_updated_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "file_texts" (
	"file_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"text" text NOT NULL,
	"note" text,
	"search_config" "regconfig" DEFAULT 'simple'::regconfig NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector(search_config, text)) STORED,
	"attempts" integer DEFAULT 0 NOT NULL,
	"extracted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_members" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text DEFAULT 'developer' NOT NULL,
	"added_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "memories_content_trgm";--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "search_config" "regconfig" DEFAULT 'simple'::regconfig NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_embedding_queue" ADD CONSTRAINT "memory_embedding_queue_memory_id_memories_id_fk" FOREIGN KEY ("memory_id") REFERENCES "public"."memories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_embeddings" ADD CONSTRAINT "memory_embeddings_memory_id_memories_id_fk" FOREIGN KEY ("memory_id") REFERENCES "public"."memories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file_texts" ADD CONSTRAINT "file_texts_file_id_drive_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."drive_files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_members" ADD CONSTRAINT "console_members_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_members" ADD CONSTRAINT "console_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memory_embeddings_buckets" ON "memory_embeddings" USING gin ("user_id","team_id","buckets");--> statement-breakpoint
CREATE INDEX "memory_embeddings_model" ON "memory_embeddings" USING btree ("model");--> statement-breakpoint
CREATE INDEX "file_texts_search" ON "file_texts" USING gin ("user_id","search");--> statement-breakpoint
CREATE UNIQUE INDEX "console_members_account_user" ON "console_members" USING btree ("account_id","user_id");--> statement-breakpoint
CREATE INDEX "console_members_user" ON "console_members" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "memories_owner_trgm" ON "memories" USING gin ("user_id","content" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "memories_pinned" ON "memories" USING btree ("user_id","team_id") WHERE "memories"."pinned";