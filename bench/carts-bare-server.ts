/**
 * The baseline of `carts.list`: a bare node:http + pg server that answers GET /api/portal/carts
 * the way Steward does for a user key: the key lookup of the bare /api/me baseline
 * (bench/bare-server.ts), then the same two queries Steward runs (the user's 50 newest carts
 * waiting for them, with the task's title and the assistant's name; then the shown content of
 * their dispatches), written as the same JSON. Nothing else: no validation, rate limit or logging.
 */
import http from 'node:http';
import { lookup, pool } from './bare-key';

const port = Number(process.env.PORT);

const CARTS = `SELECT c.*, t.title AS task_title, a.name AS assistant_name
  FROM carts c JOIN tasks t ON t.id = c.task_id LEFT JOIN assistants a ON a.id = c.assistant_id
  WHERE c.user_id = $1 AND c.account_id = $2 AND c.status IN ('pending_approval', 'time_boxed')
  ORDER BY c.created_at DESC, c.id DESC LIMIT 50`;

const DISPATCHES = `SELECT d.*, v.content, v.id AS version_id
  FROM cart_dispatches d JOIN cart_dispatch_versions v ON v.id = d.current_version_id
  WHERE d.cart_id = ANY($1) AND d.removed_at IS NULL
  ORDER BY d.cart_id, d.index`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The same public shape as server/approvals/present.ts toPublicDispatch. */
function dispatch(d: Record<string, any>) {
  const c = d.content;
  return {
    index: d.index,
    type: d.type,
    platform: c.platform,
    actionType: d.action_type,
    from: c.from,
    to: c.to,
    cc: c.cc,
    bcc: c.bcc,
    subject: c.subject,
    body: c.body,
    description: c.description,
    payload: c.payload,
    files: c.files,
    editedByUser: d.edited_by_user,
    currentVersionId: d.version_id,
    validUntil: c.validUntil,
    evergreen: c.evergreen,
    deliveryState: d.delivery_state,
    heldBecause: d.held_because ?? null,
  };
}

/** The same public shape as server/approvals/present.ts toPublicCart. */
function cart(c: Record<string, any>, shown: Record<string, any>[]) {
  return {
    id: c.id,
    taskId: c.task_id,
    taskTitle: c.task_title,
    assistantName: c.assistant_name,
    status: c.status,
    resolvedApprovalMode: c.resolved_approval_mode,
    timeBoxedExpiresAt: iso(c.time_boxed_expires_at),
    timeBoxedExpiry: c.time_boxed_expiry,
    dispatches: shown.map(dispatch),
    contentHash: c.content_hash,
    createdAt: c.created_at.toISOString(),
    updatedAt: c.updated_at.toISOString(),
  };
}

http
  .createServer(async (req, res) => {
    const k = await lookup(req.headers.authorization);
    if (!k || !k.user_id) return void res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"ok":false}');
    const { rows } = await pool.query({ name: 'carts', text: CARTS, values: [k.user_id, k.account_id] });
    const ids = rows.map((r) => r.id);
    const byCart = new Map<string, Record<string, any>[]>(ids.map((id) => [id, []]));
    if (ids.length) {
      const shown = await pool.query({ name: 'dispatches', text: DISPATCHES, values: [ids] });
      for (const d of shown.rows) byCart.get(d.cart_id)?.push(d);
    }
    const body = { ok: true, carts: rows.map((c) => cart(c, byCart.get(c.id) ?? [])) };
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
