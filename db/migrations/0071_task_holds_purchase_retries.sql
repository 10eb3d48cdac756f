ALTER TABLE "phone_line_requests" ADD COLUMN "purchase_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "phone_line_requests" ADD COLUMN "next_purchase_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "phone_line_requests" ADD COLUMN "last_purchase_error" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "system_hold" text;--> statement-breakpoint
CREATE INDEX "phone_line_requests_purchase_due" ON "phone_line_requests" USING btree ("next_purchase_at") WHERE "phone_line_requests"."status" = 'pending' AND "phone_line_requests"."next_purchase_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "tasks_system_hold" ON "tasks" USING btree ("user_id") WHERE "tasks"."system_hold" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "tasks_message_received" ON "tasks" USING btree ("account_id") WHERE "tasks"."status" = 'message_received';--> statement-breakpoint
CREATE INDEX "tasks_failed_idle" ON "tasks" USING btree ("updated_at") WHERE "tasks"."status" IN ('error', 'failed_access');