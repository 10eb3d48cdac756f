CREATE TABLE "idempotency_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text DEFAULT 'running' NOT NULL,
	"status" integer,
	"headers" jsonb,
	"body" text,
	"stream_ref" text,
	"locked_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE TABLE "engine_handoffs" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"account_id" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"claimed_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "audit_events" (
	"id" text PRIMARY KEY NOT NULL,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"account_id" text NOT NULL,
	"organization_id" text,
	"action" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"actor_email" text,
	"target_type" text NOT NULL,
	"target_id" text,
	"ip" text,
	"user_agent" text,
	"request_id" text,
	"changes" jsonb,
	"emitted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "engine_handoffs_unsent" ON "engine_handoffs" USING btree ("created_at") WHERE "engine_handoffs"."sent_at" IS NULL;--> statement-breakpoint
CREATE INDEX "engine_handoffs_sent" ON "engine_handoffs" USING btree ("sent_at");--> statement-breakpoint
CREATE INDEX "audit_events_account" ON "audit_events" USING btree ("account_id","occurred_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_events_organization" ON "audit_events" USING btree ("organization_id","occurred_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "audit_events"."organization_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "audit_events_action" ON "audit_events" USING btree ("account_id","action","occurred_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_events_actor" ON "audit_events" USING btree ("account_id","actor_id","occurred_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_events_target" ON "audit_events" USING btree ("account_id","target_id","occurred_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_events_unemitted" ON "audit_events" USING btree ("occurred_at") WHERE "audit_events"."emitted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "audit_events_occurred" ON "audit_events" USING btree ("occurred_at");