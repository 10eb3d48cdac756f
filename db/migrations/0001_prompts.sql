CREATE TABLE "prompt_blocks" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"block_name" text NOT NULL,
	"content" text NOT NULL,
	"description" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prompt_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"prompt_id" text NOT NULL,
	"version_number" integer NOT NULL,
	"etag" text NOT NULL,
	"content" jsonb NOT NULL,
	"blocks" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prompts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"prompt_name" text NOT NULL,
	"category" text NOT NULL,
	"description" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"multi_step" boolean DEFAULT false NOT NULL,
	"system_chunks" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"user_chunks" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tool_defs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"variables" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"scenarios" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"models" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"model_sampling" boolean DEFAULT false NOT NULL,
	"skillset" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"allowed_actions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"etag" text NOT NULL,
	"published_etag" text,
	"published_version" integer,
	"has_unpublished_changes" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "service_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "traces" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"prompt_name" text NOT NULL,
	"status" text NOT NULL,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"total_tokens" integer DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	"cost_currency" text DEFAULT 'USD' NOT NULL,
	"duration_ms" double precision DEFAULT 0 NOT NULL,
	"model_config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"messages" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"output" jsonb,
	"tools" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tool_choice" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"timestamp" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "prompt_blocks" ADD CONSTRAINT "prompt_blocks_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_versions" ADD CONSTRAINT "prompt_versions_prompt_id_prompts_id_fk" FOREIGN KEY ("prompt_id") REFERENCES "public"."prompts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompts" ADD CONSTRAINT "prompts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "service_keys" ADD CONSTRAINT "service_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "traces" ADD CONSTRAINT "traces_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_blocks_account_name" ON "prompt_blocks" USING btree ("account_id","block_name");--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_versions_number" ON "prompt_versions" USING btree ("prompt_id","version_number");--> statement-breakpoint
CREATE UNIQUE INDEX "prompts_account_name" ON "prompts" USING btree ("account_id","prompt_name");--> statement-breakpoint
CREATE INDEX "prompts_account_created" ON "prompts" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "service_keys_hash" ON "service_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "traces_account_created" ON "traces" USING btree ("account_id","created_at");