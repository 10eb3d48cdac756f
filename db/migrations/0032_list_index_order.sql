DROP INDEX "task_activities_task_created";--> statement-breakpoint
DROP INDEX "tasks_user_created";--> statement-breakpoint
DROP INDEX "tasks_account_created";--> statement-breakpoint
DROP INDEX "carts_user_status_created";--> statement-breakpoint
DROP INDEX "carts_task";--> statement-breakpoint
CREATE INDEX "cart_dispatches_provider_message_id" ON "cart_dispatches" USING btree ("provider_message_id");--> statement-breakpoint
CREATE INDEX "task_activities_task_created" ON "task_activities" USING btree ("task_id","created_at","id");--> statement-breakpoint
CREATE INDEX "tasks_user_created" ON "tasks" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "tasks_account_created" ON "tasks" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "carts_user_status_created" ON "carts" USING btree ("user_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "carts_task" ON "carts" USING btree ("task_id","created_at");