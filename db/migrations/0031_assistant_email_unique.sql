DROP INDEX "assistants_account_email";--> statement-breakpoint
-- Addresses were unique per account only; the later holder of an address another account already
-- has gets a distinct one (its local part plus a piece of its id), so inbound mail has one owner.
UPDATE "assistants" AS a SET "email" = split_part(a."email", '@', 1) || '.' || left(a."id", 8) || '@' || split_part(a."email", '@', 2)
WHERE a."email" IS NOT NULL AND EXISTS (
  SELECT 1 FROM "assistants" AS b WHERE b."email" = a."email" AND (b."created_at", b."id") < (a."created_at", a."id")
);--> statement-breakpoint
CREATE UNIQUE INDEX "assistants_email" ON "assistants" USING btree ("email") WHERE "assistants"."email" IS NOT NULL;
