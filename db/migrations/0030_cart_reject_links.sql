CREATE TABLE "cart_reject_links" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"cart_id" text NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"content_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"sending_until" timestamp with time zone,
	"mailed_at" timestamp with time zone,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cart_reject_links" ADD CONSTRAINT "cart_reject_links_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cart_reject_links" ADD CONSTRAINT "cart_reject_links_cart_id_carts_id_fk" FOREIGN KEY ("cart_id") REFERENCES "public"."carts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cart_reject_links" ADD CONSTRAINT "cart_reject_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cart_reject_links_cart" ON "cart_reject_links" USING btree ("cart_id");--> statement-breakpoint
CREATE UNIQUE INDEX "cart_reject_links_token" ON "cart_reject_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "cart_reject_links_expiry" ON "cart_reject_links" USING btree ("expires_at");