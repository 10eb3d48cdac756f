CREATE INDEX "executor_runs_due" ON "executor_runs" USING btree ("available_at") WHERE status IN ('queued', 'sleeping', 'waiting') AND lease_until IS NULL;--> statement-breakpoint
CREATE INDEX "executor_runs_leased" ON "executor_runs" USING btree ("lease_until") WHERE status = 'running';--> statement-breakpoint
CREATE INDEX "executor_runs_waiting_event" ON "executor_runs" USING btree (("wait" ->> 'event')) WHERE status = 'waiting';--> statement-breakpoint
CREATE INDEX "executor_runs_created" ON "executor_runs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "executor_runs_function_created" ON "executor_runs" USING btree ("function_id","created_at");