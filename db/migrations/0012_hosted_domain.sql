ALTER TABLE "accounts" ADD COLUMN "hosted_domain" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_hosted_domain_unique" UNIQUE("hosted_domain");