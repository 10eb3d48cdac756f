DROP INDEX "organization_domains_account_domain";--> statement-breakpoint
DROP INDEX "organization_domains_org";--> statement-breakpoint
CREATE UNIQUE INDEX "organization_domains_verified_domain" ON "organization_domains" USING btree ("account_id","domain") WHERE "organization_domains"."verified";--> statement-breakpoint
CREATE UNIQUE INDEX "organization_domains_org_domain" ON "organization_domains" USING btree ("organization_id","domain");