-- Audit (spec 5): a cart rejected from its approval email is recorded as cart.rejected in the
-- transaction that rejects it. The reject link's service records nothing itself, so the carts table
-- does: whoever the rejection is in the name of (resolved_by_user_id) is the actor. The event has no
-- IP or request id (a reject page's request is not the kernel's); the audit sweep delivers it as the
-- webhook event audit.event (emitted_at stays NULL until then).
CREATE OR REPLACE FUNCTION steward_audit_cart_rejected() RETURNS trigger AS $$
BEGIN
  INSERT INTO audit_events (id, occurred_at, account_id, organization_id, action, actor_type, actor_id, actor_email, target_type, target_id, changes)
  SELECT left(replace(gen_random_uuid()::text, '-', ''), 24), date_trunc('milliseconds', clock_timestamp()), NEW.account_id, u.organization_id, 'cart.rejected', 'user',
         NEW.resolved_by_user_id, u.email, 'cart', NEW.id,
         jsonb_build_object('before', jsonb_build_object('status', OLD.status), 'after', jsonb_build_object('status', NEW.status, 'reason', NEW.reason))
  FROM (SELECT 1) AS one LEFT JOIN users u ON u.id = NEW.resolved_by_user_id;
  RETURN NULL;
END $$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER carts_audit_rejected AFTER UPDATE OF status ON carts
  FOR EACH ROW WHEN (NEW.status = 'rejected' AND OLD.status IS DISTINCT FROM 'rejected')
  EXECUTE FUNCTION steward_audit_cart_rejected();
