CREATE TABLE "list_counts" (
	"list" text NOT NULL,
	"owner" text NOT NULL,
	"facet" text DEFAULT '' NOT NULL,
	"slot" smallint DEFAULT 0 NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "list_counts_pkey" PRIMARY KEY("list","owner","facet","slot")
);
--> statement-breakpoint
DROP INDEX "users_account_created";--> statement-breakpoint
DROP INDEX "users_organization";--> statement-breakpoint
DROP INDEX "traces_account_created";--> statement-breakpoint
DROP INDEX "memories_user_created";--> statement-breakpoint
DROP INDEX "memories_team";--> statement-breakpoint
DROP INDEX "contacts_user_created";--> statement-breakpoint
CREATE INDEX "users_account_list" ON "users" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "users_account_status_list" ON "users" USING btree ("account_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "users_organization_list" ON "users" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "users_search_trgm" ON "users" USING gin (("email" || ' ' || coalesce("name", '') || ' ' || "first_name" || ' ' || "last_name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "traces_account_list" ON "traces" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "traces_search_trgm" ON "traces" USING gin (("prompt_name" || ' ' || coalesce("model_config"->>'model', '')) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "memories_user_list" ON "memories" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "memories_team_list" ON "memories" USING btree ("team_id","created_at","id");--> statement-breakpoint
CREATE INDEX "memories_content_trgm" ON "memories" USING gin ("content" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "contacts_user_list" ON "contacts" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "contacts_user_status_list" ON "contacts" USING btree ("user_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "contacts_tags" ON "contacts" USING gin ("tags");--> statement-breakpoint
CREATE INDEX "contacts_search_trgm" ON "contacts" USING gin ((coalesce("name", '') || ' ' || coalesce("preferred_name", '') || ' ' || "email" || ' ' || coalesce("title", '') || ' ' || coalesce("company"->>'name', '') || ' ' || "emails"::text) gin_trgm_ops);