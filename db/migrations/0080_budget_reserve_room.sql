-- steward_reserve_credits as in migration 0045, answering with a reservation how much room its
-- budgets have left after it ("room", the least over them) and what it holds ("amount"). The
-- model step settles a call whose budgets are far from their limits after the step, off its
-- path (server/budgets/settle-later.ts); near a limit, where the next call waits for that
-- settlement, it settles in the statement that writes the call's usage row, as before.
CREATE OR REPLACE FUNCTION steward_reserve_credits(
  p_id text, p_ref text, p_account text, p_user text, p_targets jsonb, p_estimate numeric, p_now timestamptz
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_status text;
  r record;
  v_limit numeric;
  v_room numeric := NULL;
  v_busy boolean := false;
  v_amount numeric;
BEGIN
  SELECT status INTO v_status FROM credit_reservations WHERE ref = p_ref FOR UPDATE;
  IF FOUND AND v_status <> 'released' THEN
    RETURN jsonb_build_object('kind', 'reserved');
  END IF;
  INSERT INTO credit_budget_usage (budget_id, period_start, member_user_id)
    SELECT t."budgetId", t."periodStart", t."memberUserId"
    FROM jsonb_to_recordset(p_targets) AS t("budgetId" text, "periodStart" timestamptz, "memberUserId" text)
    ORDER BY 1, 2, 3
  ON CONFLICT DO NOTHING;
  FOR r IN
    SELECT u.spent, u.reserved, u.granted, t.idx, t."baseLimit", t."shareLimit"
    FROM credit_budget_usage u
    JOIN jsonb_to_recordset(p_targets) AS t("budgetId" text, "periodStart" timestamptz, "memberUserId" text, "baseLimit" numeric, "shareLimit" numeric, idx integer)
      ON u.budget_id = t."budgetId" AND u.period_start = t."periodStart" AND u.member_user_id = t."memberUserId"
    ORDER BY u.budget_id, u.period_start, u.member_user_id
    FOR UPDATE OF u
  LOOP
    v_limit := coalesce(r."shareLimit", round(r."baseLimit" + r.granted, 6));
    v_room := least(coalesce(v_room, v_limit - r.spent - r.reserved), v_limit - r.spent - r.reserved);
    IF r.spent >= v_limit THEN
      RETURN jsonb_build_object('kind', 'exhausted', 'index', r.idx, 'spent', r.spent, 'limit', v_limit);
    ELSIF p_estimate IS NOT NULL AND round(r.spent + r.reserved + p_estimate, 6) <= v_limit THEN
      CONTINUE;
    ELSIF r.reserved > 0 THEN
      v_busy := true;
    END IF;
  END LOOP;
  IF v_busy THEN
    RETURN jsonb_build_object('kind', 'busy');
  END IF;
  v_amount := coalesce(p_estimate, greatest(round(coalesce(v_room, 0), 6), 0.000001));
  UPDATE credit_budget_usage u SET reserved = u.reserved + v_amount, updated_at = p_now
    FROM jsonb_to_recordset(p_targets) AS t("budgetId" text, "periodStart" timestamptz, "memberUserId" text)
    WHERE u.budget_id = t."budgetId" AND u.period_start = t."periodStart" AND u.member_user_id = t."memberUserId";
  INSERT INTO credit_reservations (id, account_id, user_id, ref, amount, targets, status, created_at)
    VALUES (p_id, p_account, p_user, p_ref, v_amount,
      (SELECT coalesce(jsonb_agg(jsonb_build_object('budgetId', t."budgetId", 'periodStart', t."periodStart", 'memberUserId', t."memberUserId")), '[]'::jsonb)
       FROM jsonb_to_recordset(p_targets) AS t("budgetId" text, "periodStart" text, "memberUserId" text)),
      'held', p_now)
  ON CONFLICT (ref) DO UPDATE SET amount = EXCLUDED.amount, targets = EXCLUDED.targets, status = 'held',
    settled_credits = NULL, settled_at = NULL, created_at = EXCLUDED.created_at;
  RETURN jsonb_build_object('kind', 'reserved', 'amount', v_amount, 'room', round(coalesce(v_room, 0) - v_amount, 6));
END
$$;
