/**
 * The baseline of `tasks.list`: a bare node:http + pg server that answers GET /api/tasks the way
 * Steward does for a user key: the key lookup of the bare /api/me baseline (bench/bare-server.ts),
 * then the list (the first page of 20 of the key's user's tasks, newest first, with the owner's
 * email and each task's pending cart), written as the same JSON. Nothing else: no validation,
 * rate limit or logging.
 */
import http from 'node:http';
import { lookup, pool } from './bare-key';

const port = Number(process.env.PORT);

/**
 * The page in one statement: every column of the tasks and the owner's email, then for those 20
 * rows only each task's newest cart waiting for the person (the task's `pendingCart`): the least a
 * hand-written server would send to Postgres for the same answer.
 */
const LIST = `SELECT p.*, c.id AS cart_id, c.status AS cart_status, c.content_hash AS cart_content_hash,
    c.time_boxed_expires_at AS cart_expires_at, c.dispatch_count AS cart_dispatch_count
  FROM (
    SELECT t.id, t.account_id, t.user_id, t.assistant_id, t.parent_task_id, t.title, t.description, t.status, t.model_tier,
      t.created_by, t.proposal_status, t.approval_mode, t.summary, t.plan, t.waiting_on_contacts, t.alarm_wake_at, t.alarm_headline,
      t.alarm_status, t.ready_for_review, t.handled_by_assistant_id, t.system_hold, t.scheduled_for, t.completed_at, t.feedback, t.skills, t.followers,
      t.on_behalf_of, t.tags, t.tainted, t.taint_sources, t.created_at, t.updated_at, u.email AS owner_email
    FROM tasks t JOIN users u ON u.id = t.user_id
    WHERE t.account_id = $1 AND t.user_id = $2
    ORDER BY t.created_at DESC, t.id DESC LIMIT $3 OFFSET $4
  ) p
  LEFT JOIN LATERAL (
    SELECT c.id, c.status, c.content_hash, c.time_boxed_expires_at,
      (SELECT count(*)::int FROM cart_dispatches d WHERE d.cart_id = c.id AND d.removed_at IS NULL) AS dispatch_count
    FROM carts c WHERE c.task_id = p.id AND c.status IN ('pending_approval', 'time_boxed')
    ORDER BY c.created_at DESC, c.id DESC LIMIT 1
  ) c ON true
  ORDER BY p.created_at DESC, p.id DESC`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The owner first, then the stored addresses, each once (server/tasks/followers.ts publicFollowers). */
function followers(owner: string, stored: string[]): string[] {
  const o = owner.trim().toLowerCase();
  return [o, ...new Set(stored.map((e) => e.trim().toLowerCase()).filter((e) => e !== o))];
}

/** The same public shape as server/tasks/present.ts toPublicTask. */
function present(t: Record<string, any>) {
  return {
    id: t.id,
    type: 'task',
    title: t.title,
    description: t.description,
    status: t.status,
    owner: t.owner_email,
    ownerId: t.user_id,
    assistant: t.assistant_id,
    parentTask: t.parent_task_id,
    modelTier: t.model_tier,
    createdBy: t.created_by,
    tags: t.tags,
    proposalStatus: t.proposal_status,
    summary: t.summary,
    plan: t.plan,
    waitingOnContacts: t.waiting_on_contacts,
    alarm: t.alarm_status && t.alarm_wake_at ? { wakeAt: t.alarm_wake_at.toISOString(), headline: t.alarm_headline, status: t.alarm_status } : null,
    pendingCart: t.cart_id
      ? { id: t.cart_id, status: t.cart_status, contentHash: t.cart_content_hash, dispatchCount: t.cart_dispatch_count, timeBoxedExpiresAt: iso(t.cart_expires_at) }
      : null,
    approvalMode: t.approval_mode,
    handledBy: t.status === 'handled_by_other' ? t.handled_by_assistant_id : null,
    systemHold: t.status === 'paused' ? t.system_hold : null,
    scheduledFor: iso(t.scheduled_for),
    completedAt: iso(t.completed_at),
    readyForReview: t.status === 'awaiting_user_input' && t.ready_for_review,
    feedback: t.feedback,
    skills: t.skills,
    followers: followers(t.owner_email, t.followers),
    onBehalfOf: t.on_behalf_of,
    tainted: t.tainted,
    taintSources: t.taint_sources,
    createdAt: t.created_at.toISOString(),
    updatedAt: t.updated_at.toISOString(),
  };
}

http
  .createServer(async (req, res) => {
    const k = await lookup(req.headers.authorization);
    if (!k || !k.user_id) return void res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"ok":false}');
    const perPage = 20;
    const { rows } = await pool.query({ name: 'list', text: LIST, values: [k.account_id, k.user_id, perPage, 0] });
    const body = { ok: true, tasks: rows.map(present), page: 1, perPage };
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
