CREATE TABLE "steward_nodes" (
	"id" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace_holders" (
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"node_id" text NOT NULL,
	"since" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspace_holders_account_id_user_id_pk" PRIMARY KEY("account_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "workspace_holders" ADD CONSTRAINT "workspace_holders_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_holders" ADD CONSTRAINT "workspace_holders_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "steward_nodes_url" ON "steward_nodes" USING btree ("url");--> statement-breakpoint
CREATE INDEX "workspace_holders_node" ON "workspace_holders" USING btree ("node_id");