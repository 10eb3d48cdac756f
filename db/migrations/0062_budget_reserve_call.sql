-- One model call's credit reservation in one round trip, the covering budgets included
-- (server/budgets/reserve.ts). It finds what server/budgets/coverage.ts finds (the budgets of the
-- account, the user's organization, their active teams and the user, each budget as a whole and,
-- for a team budget with a member share, the user's share of it: memberLimitCredits × their team
-- multiplier, 1 when unset, to six decimals), the periods those count in (UTC: a day from
-- midnight, an ISO week from Monday, a month from the first, `none` from the Unix epoch; written
-- as JavaScript's toISOString writes them, as reservations have always stored them) and the
-- account's estimate for the tier (else p_default_estimate), then applies the rule of
-- steward_reserve_credits (migration 0045) unchanged. No covering budget: {"kind":"none"}. A
-- spent budget: steward_reserve_credits' answer with the budget it names ("budget").
CREATE OR REPLACE FUNCTION steward_reserve_call(
  p_id text, p_ref text, p_account text, p_user text, p_tier text, p_default_estimate numeric, p_now timestamptz
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_targets jsonb;
  v_estimate numeric;
  v_result jsonb;
  v_target jsonb;
  v_day timestamp := date_trunc('day', p_now AT TIME ZONE 'UTC');
BEGIN
  WITH tm AS (
    SELECT m.team_id, m.multiplier FROM team_memberships m JOIN teams t ON t.id = m.team_id
    WHERE m.user_id = p_user AND m.account_id = p_account AND m.status = 'active' AND t.status = 'active'
  ), b AS (
    SELECT * FROM credit_budgets WHERE account_id = p_account AND (
      (scope = 'account' AND scope_id = p_account) OR (scope = 'user' AND scope_id = p_user)
      OR (scope = 'organization' AND scope_id = (SELECT organization_id FROM users WHERE id = p_user AND account_id = p_account))
      OR (scope = 'team' AND scope_id IN (SELECT team_id FROM tm)))
  ), t AS (
    SELECT b.id, b.scope, b.scope_id, b.period, '' AS member, b.limit_credits AS base_limit, NULL::numeric AS share_limit FROM b
    UNION ALL
    SELECT b.id, b.scope, b.scope_id, b.period, p_user, b.limit_credits,
      round(b.member_limit_credits * coalesce((SELECT tm.multiplier::text::numeric FROM tm WHERE tm.team_id = b.scope_id LIMIT 1), 1), 6)
    FROM b WHERE b.scope = 'team' AND b.member_limit_credits IS NOT NULL
  ), o AS (
    SELECT t.*, row_number() OVER (ORDER BY t.id COLLATE "C", t.member COLLATE "C") - 1 AS idx,
      CASE t.period
        WHEN 'none' THEN timestamp '1970-01-01'
        WHEN 'day' THEN v_day
        WHEN 'week' THEN date_trunc('week', v_day)
        ELSE date_trunc('month', v_day)
      END AS period_start
    FROM t
  )
  SELECT jsonb_agg(jsonb_build_object(
      'budgetId', o.id, 'periodStart', to_char(o.period_start, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'memberUserId', o.member,
      'baseLimit', o.base_limit, 'shareLimit', o.share_limit, 'idx', o.idx,
      'scope', o.scope, 'scopeId', o.scope_id, 'period', o.period) ORDER BY o.idx)
    INTO v_targets FROM o;
  IF v_targets IS NULL THEN
    RETURN jsonb_build_object('kind', 'none');
  END IF;
  SELECT e.credits INTO v_estimate FROM credit_estimates e WHERE e.account_id = p_account AND e.model_tier = p_tier;
  v_result := steward_reserve_credits(p_id, p_ref, p_account, p_user, v_targets, coalesce(v_estimate, p_default_estimate), p_now);
  IF v_result->>'kind' = 'exhausted' THEN
    v_target := v_targets -> ((v_result->>'index')::int);
    v_result := v_result || jsonb_build_object('budget', jsonb_build_object(
      'budgetId', v_target->'budgetId', 'scope', v_target->'scope', 'scopeId', v_target->'scopeId',
      'period', v_target->'period', 'memberUserId', v_target->'memberUserId'));
  END IF;
  RETURN v_result;
END
$$;
--> statement-breakpoint
-- A call's settlement (server/budgets/reserve.ts settleCall), as a function so that it can be made
-- by the statement that writes the call's usage row (one round trip for both): the reservation
-- settled, its usage rows charged (locked in the order reservations lock them), the estimate raised
-- when this call cost more than any before. Answers the charged rows with their budget's limit and
-- thresholds (the caller looks at alerts when one may have been crossed).
CREATE OR REPLACE FUNCTION steward_settle_call(p_ref text, p_tier text, p_credits numeric, p_now timestamptz)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_rows jsonb;
BEGIN
  WITH old AS (
    SELECT id, status, amount FROM credit_reservations WHERE ref = p_ref AND status <> 'settled' FOR UPDATE
  ), r AS (
    UPDATE credit_reservations c SET status = 'settled', settled_credits = p_credits, settled_at = p_now
    FROM old WHERE c.id = old.id
    RETURNING c.account_id, c.targets, CASE WHEN old.status = 'held' THEN old.amount ELSE 0 END AS held
  ), keys AS (
    SELECT u.budget_id, u.period_start, u.member_user_id, r.held FROM credit_budget_usage u, r,
      jsonb_to_recordset(r.targets) AS t("budgetId" text, "periodStart" timestamptz, "memberUserId" text)
    WHERE u.budget_id = t."budgetId" AND u.period_start = t."periodStart" AND u.member_user_id = t."memberUserId"
    ORDER BY u.budget_id, u.period_start, u.member_user_id
    FOR UPDATE OF u
  ), charged AS (
    UPDATE credit_budget_usage u SET spent = u.spent + p_credits, reserved = greatest(u.reserved - keys.held, 0), updated_at = p_now
    FROM keys WHERE u.budget_id = keys.budget_id AND u.period_start = keys.period_start AND u.member_user_id = keys.member_user_id
    RETURNING u.*
  ), estimate AS (
    INSERT INTO credit_estimates (account_id, model_tier, credits)
    SELECT r.account_id, p_tier, p_credits FROM r
    WHERE NOT EXISTS (SELECT 1 FROM credit_estimates e WHERE e.account_id = r.account_id AND e.model_tier = p_tier AND e.credits >= p_credits)
    ON CONFLICT (account_id, model_tier) DO UPDATE SET credits = greatest(credit_estimates.credits, EXCLUDED.credits), updated_at = now()
  )
  SELECT coalesce(jsonb_agg(to_jsonb(charged) || jsonb_build_object('limit_credits', b.limit_credits, 'alert_thresholds', b.alert_thresholds)), '[]'::jsonb)
    INTO v_rows
    FROM charged JOIN credit_budgets b ON b.id = charged.budget_id;
  RETURN v_rows;
END
$$;
