import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { carts, tasks, users } from '@/db/schema';
import { ownerActor } from '@/server/agent/runtime/owner-actor';
import type { StagedDispatch } from '@/server/approvals/contracts';
import { notifyPendingApproval } from '@/server/approvals/notify';
import { stageDispatch, submitCart } from '@/server/approvals/staging';
import { setHostedDomain } from '@/server/hosted/accounts';
import { AppError } from '@/server/http/errors';
import { startMailCapture, type CapturedMail } from '@/server/mail/capture';
import { sessionSetCookie } from '@/server/sign-in/session';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * Issue 15, the hosted approvals page: the approvals router over the cart services with the
 * session's person, the approval email, and its one-time Reject link (opening it changes
 * nothing; only the page's same-origin POST rejects, once, the content that was mailed).
 */

const app = useTestServer();
const db = () => app().database.db;

const mail: CapturedMail[] = [];
let closeMail: () => Promise<void>;
beforeAll(async () => {
  // The tRPC handler loads the serving composition (server/compose/engine-handovers.ts), whose senders need an
  // executor this file does not run: decisions here are checked in the database, not executed.
  await import('@/server/trpc/handler');
  const [{ registerCartSignals }, { registerRunDispatcher }] = await Promise.all([import('@/server/approvals/signals'), import('@/server/tasks/runs')]);
  registerCartSignals(null);
  registerRunDispatcher(null);
  const capture = await startMailCapture((m) => mail.push(m));
  closeMail = capture.close;
  vi.stubEnv('SMTP_URL', capture.url);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await closeMail?.();
});

let hostSeq = 0;
/** An account whose hosted app answers on its own https domain. */
async function hostedAccount() {
  const acct = await newAccount(app());
  const host = `approvals-${Date.now().toString(36)}-${hostSeq++}.steward.test`;
  await setHostedDomain(db(), acct.accountId, host);
  return { ...acct, host, origin: `https://${host}` };
}
type Hosted = Awaited<ReturnType<typeof hostedAccount>>;

async function person(acct: Hosted) {
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
  expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
  return { ...u, key, acct, assistantId: hired.body.assistant.id as string };
}
type Person = Awaited<ReturnType<typeof person>>;

/** The hosted app's router as a browser on the account's domain calls it: signed in as `p`, or signed out. */
async function portal(acct: Hosted, p?: Person) {
  const headers = new Headers({ host: acct.host });
  if (p) {
    const [row] = await db().select().from(users).where(eq(users.id, p.id));
    headers.set('cookie', (await sessionSetCookie(db(), row, 'email', true)).split(';')[0]);
  }
  return appRouter.createCaller(await portalContext(db(), headers));
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    if (e instanceof TRPCError) return e.cause instanceof AppError ? `${e.code}:${e.cause.code}` : e.code;
    throw e;
  }
};

const emailAs = (actionType: 'email_as_user' | 'email_as_assistant', over: Partial<StagedDispatch> = {}): StagedDispatch => ({
  type: 'email',
  platform: 'email',
  actionType,
  to: ['bob@example.org'],
  cc: ['carol@example.org'],
  subject: 'Dinner',
  body: 'Hi Bob,\n\ndinner on Friday?\n  Ada',
  ...over,
});

/** A task of `p` whose queued run stages `dispatches` and submits its cart (what a run's end does). */
async function submittedCart(p: Person, dispatches: StagedDispatch[], title = 'Write to Bob') {
  const created = await call(app(), '/tasks', { key: p.key, body: { title, assistant: p.assistantId } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const taskId = created.body.task.id as string;
  const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message: 'Please write to Bob' } });
  expect(processed.status, JSON.stringify(processed.body)).toBe(200);
  const runId = processed.body.process.executionId as string;
  const [task] = await db().select().from(tasks).where(eq(tasks.id, taskId));
  const actor = await ownerActor(db(), task, runId);
  let cartId = '';
  for (const d of dispatches) cartId = (await db().transaction((tx) => stageDispatch(tx, actor!, task, runId, d))).cartId;
  const outcome = await db().transaction((tx) => submitCart(tx, cartId));
  return { cartId, taskId, outcome };
}

/** Email as the user is manual for a new user: the cart waits for approval. */
async function pendingCart(p: Person, title?: string) {
  const made = await submittedCart(p, [emailAs('email_as_user')], title);
  expect(made.outcome).toMatchObject({ next: 'wait', status: 'pending_approval' });
  return made;
}

const restCart = async (p: Person, cartId: string) => {
  const res = await call(app(), `/portal/carts/${cartId}`, { key: p.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.cart;
};
const statusOf = async (cartId: string) => (await db().select({ status: carts.status }).from(carts).where(eq(carts.id, cartId)))[0].status;
const mailsTo = (to: string) => mail.filter((m) => m.to.includes(to));
const tokenIn = (text: string) => /\/approvals\/reject\?token=([A-Za-z0-9_%-]+)/.exec(text)?.[1];

/** Notifies and returns the mailed reject link's token. */
async function notified(p: Person, cartId: string, now?: Date) {
  const before = mailsTo(p.email).length;
  expect(await notifyPendingApproval(db(), cartId, now)).toEqual({ sent: true, status: 'sent' });
  await expect.poll(() => mailsTo(p.email).length).toBe(before + 1);
  const token = tokenIn(mailsTo(p.email).at(-1)!.text);
  expect(token).toBeTruthy();
  return decodeURIComponent(token!);
}

/** The reject button's request: a JSON POST to /api/trpc/approvals.reject, as the page's script sends it. */
async function postReject(acct: Hosted, token: string, headers: Record<string, string> = { 'content-type': 'application/json', origin: acct.origin }) {
  const { trpcHandler } = await import('@/server/trpc/handler');
  return trpcHandler(new Request(`${acct.origin}/api/trpc/approvals.reject`, { method: 'POST', headers: { host: acct.host, ...headers }, body: JSON.stringify({ token }) }));
}

describe('the approval email', () => {
  it('mails the owner of a cart pending approval, once: a link to /approvals on the hosted origin and a one-time Reject link whose token is not stored', async () => {
    const acct = await hostedAccount();
    const a = await person(acct);
    const { cartId } = await pendingCart(a);

    expect(await notifyPendingApproval(db(), cartId)).toEqual({ sent: true, status: 'sent' });
    await expect.poll(() => mailsTo(a.email).length).toBe(1);
    const [message] = mailsTo(a.email);
    expect(message.subject).toBe('Approval needed: Write to Bob');
    const text = message.text.replace(/\r\n/g, '\n');
    expect(text).toContain(`Ada staged an action for the task "Write to Bob"`);
    expect(text).toContain('- Email to bob@example.org, carol@example.org: "Dinner"');
    expect(text).toContain(`${acct.origin}/approvals\n`);
    const link = new RegExp(`${acct.origin.replace(/\./g, '\\.')}/approvals/reject\\?token=(rj_[A-Za-z0-9_-]{43})`).exec(text);
    expect(link, text).not.toBeNull();
    const token = link![1];

    // A second notification of the same cart (a retried step) sends nothing more.
    expect(await notifyPendingApproval(db(), cartId)).toEqual({ sent: false, reason: 'already_sent' });
    await new Promise((r) => setTimeout(r, 200));
    expect(mailsTo(a.email)).toHaveLength(1);

    // Only the token's hash is kept: neither the link table nor the outbox holds the token.
    const dump = async (table: string) => (await db().execute<{ row: string }>(sql`SELECT row_to_json(t)::text AS row FROM ${sql.identifier(table)} t`)).rows.map((r) => r.row).join('\n');
    const links = await dump('cart_reject_links');
    expect(links).toContain(createHash('sha256').update(token).digest('hex'));
    expect(links).not.toContain(token);
    const outbox = await dump('mail_outbox');
    expect(outbox).toContain('[redacted]');
    expect(outbox).not.toContain(token);
  });

  it('is not sent for a cart that is not pending approval', async () => {
    const acct = await hostedAccount();
    const a = await person(acct);
    await call(app(), `/users/${a.id}/preferences/supervision/matrix`, { key: a.key, method: 'PATCH', body: { matrix: { email_as_assistant: { mode: 'time-boxed', timeBoxedWindowMin: 30 } } } });
    const { cartId, outcome } = await submittedCart(a, [emailAs('email_as_assistant')]);
    expect(outcome).toMatchObject({ next: 'start_timer', status: 'time_boxed' });
    expect(await notifyPendingApproval(db(), cartId)).toEqual({ sent: false, reason: 'not_pending' });
    expect(await notifyPendingApproval(db(), 'no-such-cart')).toEqual({ sent: false, reason: 'not_found' });
    await new Promise((r) => setTimeout(r, 200));
    expect(mailsTo(a.email)).toHaveLength(0);
  });
});

describe('the reject link', () => {
  it('opening it shows what would be rejected and changes nothing; the page’s same-origin POST rejects the cart, once', async () => {
    const acct = await hostedAccount();
    const a = await person(acct);
    const { cartId } = await pendingCart(a);
    const token = await notified(a, cartId);

    // What a mail scanner or the page does first: read. The cart shown is the one the API shows.
    const anon = await portal(acct);
    const preview = await anon.approvals.rejectPreview({ token });
    expect(preview.state).toBe('ready');
    const shown = await restCart(a, cartId);
    expect(preview).toMatchObject({ cart: { id: cartId, status: 'pending_approval', contentHash: shown.contentHash, dispatches: shown.dispatches } });
    expect(await statusOf(cartId)).toBe('pending_approval');
    // A GET of the mutation (a prefetch of any URL) rejects nothing either.
    const { trpcHandler } = await import('@/server/trpc/handler');
    vi.stubEnv('DATABASE_URL', app().database.pool.options.connectionString as string);
    const get = await trpcHandler(new Request(`${acct.origin}/api/trpc/approvals.reject?input=${encodeURIComponent(JSON.stringify({ token }))}`, { headers: { host: acct.host } }));
    expect(get.status).toBeGreaterThanOrEqual(400);
    // Nor does a cross-site or non-JSON post (the same-origin guard of every hosted-app mutation).
    expect((await postReject(acct, token, { 'content-type': 'application/json', origin: 'https://evil.example' })).status).toBe(403);
    expect((await postReject(acct, token, { 'content-type': 'text/plain', origin: acct.origin })).status).toBe(403);
    expect(await statusOf(cartId)).toBe('pending_approval');

    const rejected = await postReject(acct, token);
    expect(rejected.status).toBe(200);
    expect(await rejected.json()).toEqual({ result: { data: { ok: true, cartId, status: 'rejected' } } });
    expect((await restCart(a, cartId)).status).toBe('rejected');
    // Nothing is waiting any more, and nothing can approve it now.
    expect((await call(app(), '/portal/carts', { key: a.key })).body.carts).toEqual([]);
    const approve = await call(app(), `/portal/carts/${cartId}/approve`, { key: a.key, body: { contentHash: shown.contentHash } });
    expect([approve.status, approve.body.error_code]).toEqual([400, 'cart_already_resolved']);

    // Once: the link is spent.
    const again = await postReject(acct, token);
    expect(again.status).toBe(409);
    expect((await again.json()).error.data).toMatchObject({ error_code: 'reject_link_used' });
    expect(await anon.approvals.rejectPreview({ token })).toEqual({ state: 'used', cartStatus: 'rejected' });
  });

  it('refuses, changing nothing: a made-up token, another account’s host, an expired link, content edited since the email, a cart already decided', async () => {
    const acct = await hostedAccount();
    const other = await hostedAccount();
    const a = await person(acct);
    const anon = await portal(acct);
    const asA = await portal(acct, a);

    expect(await anon.approvals.rejectPreview({ token: 'rj_madeup' })).toEqual({ state: 'invalid' });
    expect(await codeOf(anon.approvals.reject({ token: 'rj_madeup' }))).toBe('NOT_FOUND:not_found');

    // Another account's hosted app does not know the token.
    const first = await pendingCart(a);
    const token = await notified(a, first.cartId);
    const elsewhere = await portal(other);
    expect(await elsewhere.approvals.rejectPreview({ token })).toEqual({ state: 'invalid' });
    expect(await codeOf(elsewhere.approvals.reject({ token }))).toBe('NOT_FOUND:not_found');
    expect(await statusOf(first.cartId)).toBe('pending_approval');

    // Edited since the email: the link rejected the content it was mailed about, not the person's edit.
    const edited = await asA.approvals.edit({ cartId: first.cartId, index: 0, body: 'Hi Bob, Saturday instead?' });
    expect(await anon.approvals.rejectPreview({ token })).toEqual({ state: 'changed', cartStatus: 'pending_approval' });
    expect(await codeOf(anon.approvals.reject({ token }))).toBe('CONFLICT:cart_content_changed');
    expect(await statusOf(first.cartId)).toBe('pending_approval');

    // Decided on the page meanwhile.
    await asA.approvals.approve({ cartId: first.cartId, contentHash: edited.cart.contentHash });
    expect(await anon.approvals.rejectPreview({ token })).toEqual({ state: 'resolved', cartStatus: 'approved' });
    expect(await codeOf(anon.approvals.reject({ token }))).toBe('CONFLICT:cart_already_resolved');
    expect(await statusOf(first.cartId)).toBe('approved');

    // Expired: mailed eight days ago, valid for seven.
    const late = await pendingCart(a);
    const old = await notified(a, late.cartId, new Date(Date.now() - 8 * 24 * 3_600_000));
    expect(await anon.approvals.rejectPreview({ token: old })).toEqual({ state: 'expired', cartStatus: 'pending_approval' });
    expect(await codeOf(anon.approvals.reject({ token: old }))).toBe('CONFLICT:reject_link_expired');
    expect(await statusOf(late.cartId)).toBe('pending_approval');
  });
});

describe('the approvals router', () => {
  it('the signed-in person lists their pending and time-boxed carts, edits the text (a new version and hash) and approves exactly the hash they saw', async () => {
    const acct = await hostedAccount();
    const a = await person(acct);
    const b = await person(acct);
    const pending = await pendingCart(a, 'Pending one');
    await call(app(), `/users/${a.id}/preferences/supervision/matrix`, { key: a.key, method: 'PATCH', body: { matrix: { email_as_assistant: { mode: 'time-boxed', timeBoxedWindowMin: 30 } } } });
    const boxed = await submittedCart(a, [emailAs('email_as_assistant')], 'Boxed one');
    expect(boxed.outcome).toMatchObject({ status: 'time_boxed' });
    const theirs = await pendingCart(b);

    const asA = await portal(acct, a);
    const listed = await asA.approvals.list({});
    expect(listed.carts.map((c) => [c.taskTitle, c.status])).toEqual([
      ['Boxed one', 'time_boxed'],
      ['Pending one', 'pending_approval'],
    ]);
    expect(listed.carts[0].timeBoxedExpiresAt).not.toBeNull();
    expect((await asA.approvals.list({ status: 'time_boxed' })).carts.map((c) => c.id)).toEqual([boxed.cartId]);
    expect(await codeOf(asA.approvals.list({ status: 'executed' }))).toBe('BAD_REQUEST');

    // The page shows what the API shows.
    const read = await asA.approvals.get({ cartId: pending.cartId });
    expect(read.cart).toEqual(await restCart(a, pending.cartId));

    const edited = await asA.approvals.edit({ cartId: pending.cartId, index: 0, subject: 'Dinner, changed', body: 'Line one\n\n  line three' });
    expect(edited.cart.contentHash).not.toBe(read.cart.contentHash);
    expect(edited.cart.dispatches[0]).toMatchObject({ subject: 'Dinner, changed', body: 'Line one\n\n  line three', editedByUser: true, to: ['bob@example.org'], cc: ['carol@example.org'] });
    expect(edited.cart.dispatches[0].currentVersionId).not.toBe(read.cart.dispatches[0].currentVersionId);
    expect(await codeOf(asA.approvals.edit({ cartId: pending.cartId, index: 0 }))).toBe('BAD_REQUEST:empty_edit');

    // The hash read before the edit approves nothing.
    expect(await codeOf(asA.approvals.approve({ cartId: pending.cartId, contentHash: read.cart.contentHash }))).toBe('CONFLICT:cart_content_changed');
    expect(await codeOf(asA.approvals.approve({ cartId: pending.cartId, contentHash: '' }))).toBe('BAD_REQUEST:content_hash_required');
    expect(await statusOf(pending.cartId)).toBe('pending_approval');
    expect(await asA.approvals.approve({ cartId: pending.cartId, contentHash: edited.cart.contentHash })).toEqual({ ok: true, cartId: pending.cartId, status: 'approved' });
    expect((await restCart(a, pending.cartId)).status).toBe('approved');
    expect(await codeOf(asA.approvals.cancel({ cartId: pending.cartId }))).toBe('BAD_REQUEST:cart_already_resolved');

    // Cancel, with the reason for the assistant.
    expect(await asA.approvals.cancel({ cartId: boxed.cartId, reason: 'Not now' })).toEqual({ ok: true, cartId: boxed.cartId, status: 'cancelled' });
    expect((await db().select({ reason: carts.reason }).from(carts).where(eq(carts.id, boxed.cartId)))[0].reason).toBe('Not now');

    // Another person's cart does not exist for A; signed out, nothing does.
    expect(await codeOf(asA.approvals.get({ cartId: theirs.cartId }))).toBe('NOT_FOUND:not_found');
    expect(await codeOf(asA.approvals.approve({ cartId: theirs.cartId, contentHash: (await restCart(b, theirs.cartId)).contentHash }))).toBe('NOT_FOUND:not_found');
    expect(await codeOf(asA.approvals.edit({ cartId: theirs.cartId, index: 0, body: 'mine now' }))).toBe('NOT_FOUND:not_found');
    expect(await statusOf(theirs.cartId)).toBe('pending_approval');
    const anon = await portal(acct);
    expect(await codeOf(anon.approvals.list({}))).toBe('UNAUTHORIZED');
    expect(await codeOf(anon.approvals.approve({ cartId: theirs.cartId, contentHash: 'x' }))).toBe('UNAUTHORIZED');
  });
});
