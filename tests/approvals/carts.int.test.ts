import { generateKeyPairSync } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { SignJWT, importPKCS8 } from 'jose';
import { describe, expect, it } from 'vitest';
import { pendingCartSummary } from '@/db/queries/carts';
import { cartDispatches, cartDispatchVersions, carts, tasks } from '@/db/schema';
import { registerCertificate } from '@/server/accounts/service';
import { ownerActor } from '@/server/agent/runtime/owner-actor';
import { CartEnvelope, ListCartsResponse, SnapshotsResponse, type StagedDispatch } from '@/server/approvals/contracts';
import { discardTaskCarts } from '@/server/approvals/discard';
import { stageDispatch, submitCart } from '@/server/approvals/staging';
import { queueRun } from '@/server/tasks/runs';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();
const db = () => app().database.db;

async function person(acct: AccountFixture) {
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
  expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
  return { ...u, key, acct, assistantId: hired.body.assistant.id as string, assistantEmail: hired.body.assistant.email as string };
}
type Person = Awaited<ReturnType<typeof person>>;

async function setup() {
  const acct = await newAccount(app());
  return { acct, a: await person(acct), b: await person(acct) };
}

/** A real task of the person, processed: its queued run is the one that stages. */
async function runningTask(p: Person) {
  const created = await call(app(), '/tasks', { key: p.key, body: { title: 'Write to Bob', assistant: p.assistantId } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const taskId = created.body.task.id as string;
  const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message: 'Please write to Bob' } });
  expect(processed.status, JSON.stringify(processed.body)).toBe(200);
  return { taskId, runId: processed.body.process.executionId as string };
}

const taskRow = async (id: string) => (await db().select().from(tasks).where(eq(tasks.id, id)))[0];

/** What the staging tools will do: stage as the task's owner, inside a transaction. */
async function stage(taskId: string, runId: string, input: StagedDispatch) {
  const task = await taskRow(taskId);
  const actor = await ownerActor(db(), task, runId);
  return db().transaction((tx) => stageDispatch(tx, actor!, task, runId, input));
}
const submit = (cartId: string, now?: Date) => db().transaction((tx) => submitCart(tx, cartId, now));

const emailAsUser = (over: Partial<StagedDispatch> = {}): StagedDispatch => ({
  type: 'email',
  platform: 'email',
  actionType: 'email_as_user',
  to: ['bob@example.org'],
  subject: 'Dinner',
  body: 'Hi Bob, dinner on Friday?',
  ...over,
});
const sms = (over: Partial<StagedDispatch> = {}): StagedDispatch => ({ type: 'message', platform: 'sms', actionType: 'messaging', to: ['+33612345678'], body: 'On my way', ...over });

/** A cart pending approval (email as the user is manual for a new user), with its task. */
async function pendingCart(p: Person, dispatches: StagedDispatch[] = [emailAsUser()]) {
  const { taskId, runId } = await runningTask(p);
  let cartId = '';
  for (const d of dispatches) cartId = (await stage(taskId, runId, d)).cartId;
  const outcome = await submit(cartId);
  expect(outcome).toMatchObject({ next: 'wait', status: 'pending_approval' });
  return { cartId, taskId, runId };
}

const read = async (p: Person, cartId: string) => {
  const res = await call(app(), `/portal/carts/${cartId}`, { key: p.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return CartEnvelope.parse(res.body).cart;
};
const approve = (p: Person, cartId: string, body: Record<string, unknown>) => call(app(), `/portal/carts/${cartId}/approve`, { key: p.key, body });
const edit = (p: Person, cartId: string, index: number, body: unknown) => call(app(), `/portal/carts/${cartId}/dispatches/${index}/edit`, { method: 'PATCH', key: p.key, body });
const update = (p: Person, cartId: string, index: number, body: unknown) => call(app(), `/portal/carts/${cartId}/dispatches/${index}`, { method: 'PATCH', key: p.key, body });
const statusOf = async (cartId: string) => (await db().select({ status: carts.status }).from(carts).where(eq(carts.id, cartId)))[0].status;

describe('staging and submitting carts', () => {
  it('collects a run’s dispatches in one open cart, then shows it pending approval exactly as it will be sent', async () => {
    const { a } = await setup();
    const { taskId, runId } = await runningTask(a);
    const first = await stage(taskId, runId, emailAsUser({ cc: ['carol@example.org'], files: [{ filename: 'menu.pdf', mimeType: 'application/pdf', size: 12, fileId: 'f1' }] }));
    const second = await stage(taskId, runId, emailAsUser({ to: ['dan@example.org'], subject: 'Also dinner', validUntil: '2099-01-01T10:00:00+02:00' }));
    expect(second.cartId).toBe(first.cartId);
    expect([first.index, second.index]).toEqual([0, 1]);
    expect(second.contentHash).not.toBe(first.contentHash);

    // Open: the owner may read it, but it waits for nobody yet.
    expect((await read(a, first.cartId)).status).toBe('open');
    expect(ListCartsResponse.parse((await call(app(), '/portal/carts', { key: a.key })).body).carts).toEqual([]);

    expect(await submit(first.cartId)).toMatchObject({ next: 'wait', status: 'pending_approval' });
    const cart = await read(a, first.cartId);
    expect(Object.keys(cart).sort()).toEqual(
      ['id', 'taskId', 'taskTitle', 'assistantName', 'status', 'resolvedApprovalMode', 'timeBoxedExpiresAt', 'timeBoxedExpiry', 'dispatches', 'contentHash', 'createdAt', 'updatedAt'].sort(),
    );
    expect(cart).toMatchObject({
      taskId,
      taskTitle: 'Write to Bob',
      assistantName: 'Ada',
      status: 'pending_approval',
      resolvedApprovalMode: 'manual',
      timeBoxedExpiresAt: null,
      timeBoxedExpiry: null,
      contentHash: second.contentHash,
    });
    expect(cart.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(cart.dispatches).toEqual([
      {
        index: 0,
        type: 'email',
        platform: 'email',
        actionType: 'email_as_user',
        from: a.email,
        to: ['bob@example.org'],
        cc: ['carol@example.org'],
        bcc: [],
        subject: 'Dinner',
        body: 'Hi Bob, dinner on Friday?',
        description: null,
        payload: null,
        files: [{ filename: 'menu.pdf', mimeType: 'application/pdf', size: 12, fileId: 'f1' }],
        editedByUser: false,
        currentVersionId: first.versionId,
        validUntil: null,
        evergreen: false,
        deliveryState: 'staged',
      },
      expect.objectContaining({ index: 1, to: ['dan@example.org'], subject: 'Also dinner', validUntil: '2099-01-01T10:00:00+02:00', currentVersionId: second.versionId }),
    ]);
    // Reading again shows the same hash: it depends on the content only.
    expect((await read(a, first.cartId)).contentHash).toBe(cart.contentHash);
    // The task shows its pending cart (read through db/queries, as the tasks area will).
    expect(await pendingCartSummary(db(), taskId)).toEqual({ id: cart.id, status: 'pending_approval', contentHash: cart.contentHash, dispatchCount: 2, timeBoxedExpiresAt: null });

    // Submitting again (a retried step) changes nothing and asks for the same.
    expect(await submit(first.cartId)).toMatchObject({ next: 'wait', status: 'pending_approval' });
    // The run's next staging opens a new cart: the submitted one is closed to additions.
    expect((await stage(taskId, runId, emailAsUser())).cartId).not.toBe(first.cartId);
  });

  it('resolves the strictest mode over the dispatches: auto releases at once, manual waits, time-boxed sets its window', async () => {
    const { a } = await setup();
    // email_as_assistant and messaging are auto for a new user.
    const auto = await runningTask(a);
    const s1 = await stage(auto.taskId, auto.runId, emailAsUser({ actionType: 'email_as_assistant' }));
    await stage(auto.taskId, auto.runId, sms());
    expect(await submit(s1.cartId)).toMatchObject({ next: 'execute', status: 'approved', undoDelaySec: 30 });
    expect((await read(a, s1.cartId)).dispatches[0].from).toBe(a.assistantEmail);
    expect(await pendingCartSummary(db(), auto.taskId)).toBeNull();

    // One manual dispatch holds the whole cart.
    const mixed = await runningTask(a);
    const m1 = await stage(mixed.taskId, mixed.runId, sms());
    await stage(mixed.taskId, mixed.runId, emailAsUser());
    expect(await submit(m1.cartId)).toMatchObject({ next: 'wait', status: 'pending_approval' });

    // The user's own cell makes messaging time-boxed for 30 minutes, cancelled when the window ends.
    const patched = await call(app(), `/users/${a.id}/preferences/supervision/matrix`, {
      method: 'PATCH',
      key: a.key,
      body: { matrix: { messaging: { mode: 'time-boxed', timeBoxedWindowMin: 30, timeBoxedExpiry: 'cancel', undoDelaySec: 5 } } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const boxed = await runningTask(a);
    const b1 = await stage(boxed.taskId, boxed.runId, sms());
    await stage(boxed.taskId, boxed.runId, emailAsUser({ actionType: 'email_as_assistant' }));
    const now = new Date('2030-05-01T12:00:00Z');
    expect(await submit(b1.cartId, now)).toEqual({
      next: 'start_timer',
      cartId: b1.cartId,
      status: 'time_boxed',
      expiresAt: new Date('2030-05-01T12:30:00Z'),
      expiry: 'cancel',
      undoDelaySec: 30,
    });
    expect(await read(a, b1.cartId)).toMatchObject({ status: 'time_boxed', resolvedApprovalMode: 'time-boxed', timeBoxedExpiresAt: '2030-05-01T12:30:00.000Z', timeBoxedExpiry: 'cancel' });
    expect(await pendingCartSummary(db(), boxed.taskId)).toMatchObject({ id: b1.cartId, status: 'time_boxed', dispatchCount: 2, timeBoxedExpiresAt: '2030-05-01T12:30:00.000Z' });
  });

  it('stages only for the task’s owner and the task’s own runs', async () => {
    const { a, b } = await setup();
    const own = await runningTask(a);
    const other = await runningTask(a);
    const task = await taskRow(own.taskId);
    const bActor = await ownerActor(db(), { ...task, userId: b.id }, own.runId);
    await expect(db().transaction((tx) => stageDispatch(tx, bActor!, task, own.runId, emailAsUser()))).rejects.toMatchObject({ status: 404 });
    await expect(stage(own.taskId, other.runId, emailAsUser())).rejects.toMatchObject({ status: 404 });
    await expect(stage(own.taskId, own.runId, emailAsUser({ actionType: 'launch_rockets' as never }))).rejects.toMatchObject({ status: 400 });
    expect(await db().select().from(carts).where(eq(carts.taskId, own.taskId))).toEqual([]);
  });
});

describe('GET /portal/carts', () => {
  it('lists the caller’s waiting carts newest first, at most 50, filtered by status; a bad status is 400 naming it', async () => {
    const { a, b } = await setup();
    const { taskId } = await runningTask(a);
    const task = await taskRow(taskId);
    const ids: string[] = [];
    for (let i = 0; i < 51; i++) {
      const run = await db().transaction((tx) => queueRun(tx, task, 'wake'));
      const { cartId } = await stage(taskId, run.id, emailAsUser({ subject: `Mail ${i}` }));
      await submit(cartId);
      ids.push(cartId);
    }
    await call(app(), `/tasks/${taskId}`, { method: 'PUT', key: a.key, body: { approvalMode: 'time-boxed' } });
    const boxedRun = await db().transaction((tx) => queueRun(tx, task, 'wake'));
    const boxed = await stage(taskId, boxedRun.id, emailAsUser());
    expect(await submit(boxed.cartId)).toMatchObject({ status: 'time_boxed' });

    const all = ListCartsResponse.parse((await call(app(), '/portal/carts', { key: a.key })).body).carts;
    expect(all).toHaveLength(50);
    expect(all[0].id).toBe(boxed.cartId);
    expect(all.slice(1).map((c) => c.id)).toEqual(ids.slice(-49).reverse());
    const onlyBoxed = await call(app(), '/portal/carts?status=time_boxed', { key: a.key });
    expect(ListCartsResponse.parse(onlyBoxed.body).carts.map((c) => c.id)).toEqual([boxed.cartId]);
    const pending = ListCartsResponse.parse((await call(app(), '/portal/carts?status=pending_approval', { key: a.key })).body).carts;
    expect(pending.every((c) => c.status === 'pending_approval')).toBe(true);
    expect(pending).toHaveLength(50);

    const bad = await call(app(), '/portal/carts?status=pending_approval,executed', { key: a.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('status');
    expect(bad.body.error).toContain("'executed'");
    // Another user sees none of them.
    expect(ListCartsResponse.parse((await call(app(), '/portal/carts', { key: b.key })).body).carts).toEqual([]);
  });
});

describe('approve', () => {
  it('approves with the hash of what was read; a hash read before an edit is 409 and changes nothing', async () => {
    const { a } = await setup();
    const { cartId } = await pendingCart(a);
    const seen = await read(a, cartId);

    expect((await approve(a, cartId, {})).body).toMatchObject({ status: 400, error_code: 'content_hash_required' });
    expect((await approve(a, cartId, { contentHash: '  ' })).body).toMatchObject({ status: 400, error_code: 'content_hash_required' });

    const edited = await edit(a, cartId, 0, { body: 'Hi Bob, dinner on Saturday instead?' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const after = CartEnvelope.parse(edited.body).cart;
    const versions = await db().select().from(cartDispatchVersions).where(eq(cartDispatchVersions.cartId, cartId));

    const stale = await approve(a, cartId, { contentHash: seen.contentHash });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ ok: false, error_code: 'cart_content_changed' });
    expect(await read(a, cartId)).toEqual(after);
    expect(await db().select().from(cartDispatchVersions).where(eq(cartDispatchVersions.cartId, cartId))).toEqual(versions);

    const ok = await approve(a, cartId, { contentHash: after.contentHash, reason: 'Looks right' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toEqual({ ok: true, cartId, status: 'approved' });
    expect((await read(a, cartId)).status).toBe('approved');

    const again = await approve(a, cartId, { contentHash: after.contentHash });
    expect(again.body).toMatchObject({ status: 400, error_code: 'cart_already_resolved' });
    const cancel = await call(app(), `/portal/carts/${cartId}/cancel`, { key: a.key, body: {} });
    expect(cancel.body).toMatchObject({ status: 400, error_code: 'cart_already_resolved' });
    expect((await edit(a, cartId, 0, { body: 'late' })).body).toMatchObject({ status: 409, error_code: 'cart_not_editable' });
  });

  it('of many concurrent approvals of one cart exactly one succeeds; the rest are cart_already_resolved', async () => {
    const { a } = await setup();
    const { cartId } = await pendingCart(a);
    const { contentHash } = await read(a, cartId);
    const results = await Promise.all(Array.from({ length: 20 }, () => approve(a, cartId, { contentHash })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.map((r) => [r.status, r.body.error_code])).toEqual(refused.map(() => [400, 'cart_already_resolved']));
    expect(await statusOf(cartId)).toBe('approved');
  });

  it('a cart whose task was closed is withdrawn: 400 cart_task_closed, then cancelled', async () => {
    const { a } = await setup();
    const { cartId, taskId } = await pendingCart(a);
    const { contentHash } = await read(a, cartId);
    expect((await call(app(), `/tasks/${taskId}`, { method: 'PUT', key: a.key, body: { status: 'archived' } })).status).toBe(200);
    const res = await approve(a, cartId, { contentHash });
    expect(res.body).toMatchObject({ status: 400, error_code: 'cart_task_closed' });
    expect(await statusOf(cartId)).toBe('cancelled');
  });

  it('a cart not handed over yet cannot be approved (409 naming its status)', async () => {
    const { a } = await setup();
    const { taskId, runId } = await runningTask(a);
    const { cartId, contentHash } = await stage(taskId, runId, emailAsUser());
    expect((await approve(a, cartId, { contentHash })).body).toMatchObject({ status: 409, error_code: 'invalid_transition' });
    expect(await statusOf(cartId)).toBe('open');
  });
});

describe('the cart state table', () => {
  it('pending_approval → cancelled with a reason; then nothing moves it', async () => {
    const { a } = await setup();
    const { cartId } = await pendingCart(a);
    const res = await call(app(), `/portal/carts/${cartId}/cancel`, { key: a.key, body: { reason: 'Not now' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ ok: true, cartId, status: 'cancelled' });
    expect((await db().select().from(carts).where(eq(carts.id, cartId)))[0]).toMatchObject({ status: 'cancelled', reason: 'Not now', resolvedByUserId: a.id });
    expect((await call(app(), `/portal/carts/${cartId}/cancel`, { key: a.key, body: {} })).body).toMatchObject({ status: 400, error_code: 'cart_already_resolved' });
    expect((await approve(a, cartId, { contentHash: (await read(a, cartId)).contentHash })).body).toMatchObject({ status: 400, error_code: 'cart_already_resolved' });
    expect((await update(a, cartId, 0, { subject: 'x' })).body).toMatchObject({ status: 409, error_code: 'cart_not_editable' });
    expect((await call(app(), `/portal/carts/${cartId}/dispatches/0`, { method: 'DELETE', key: a.key })).body).toMatchObject({ status: 409, error_code: 'cart_not_editable' });
  });

  it('time_boxed can be edited, approved early, or cancelled', async () => {
    const { a } = await setup();
    const boxedCart = async () => {
      const { taskId, runId } = await runningTask(a);
      await call(app(), `/tasks/${taskId}`, { method: 'PUT', key: a.key, body: { approvalMode: 'time-boxed' } });
      const { cartId } = await stage(taskId, runId, emailAsUser({ actionType: 'email_as_assistant' }));
      expect(await submit(cartId)).toMatchObject({ next: 'start_timer', status: 'time_boxed' });
      // The list shows each task's pending cart exactly as the task's own read does.
      const one = (await call(app(), `/tasks/${taskId}`, { key: a.key })).body.task.pendingCart;
      expect(one).toMatchObject({ id: cartId, status: 'time_boxed', dispatchCount: 1, timeBoxedExpiresAt: expect.stringMatching(/Z$/) });
      const listed = (await call(app(), '/tasks?perPage=100', { key: a.key })).body.tasks.find((t: { id: string }) => t.id === taskId);
      expect(listed.pendingCart).toEqual(one);
      return cartId;
    };
    const early = await boxedCart();
    const edited = CartEnvelope.parse((await edit(a, early, 0, { subject: 'Dinner (edited)' })).body).cart;
    expect(edited.status).toBe('time_boxed');
    expect((await approve(a, early, { contentHash: edited.contentHash })).body).toEqual({ ok: true, cartId: early, status: 'approved' });

    const stopped = await boxedCart();
    expect((await call(app(), `/portal/carts/${stopped}/cancel`, { key: a.key, body: {} })).body).toEqual({ ok: true, cartId: stopped, status: 'cancelled' });
  });

  it('marking the task done discards what was not released, and leaves released carts alone', async () => {
    const { a } = await setup();
    const { taskId, runId } = await runningTask(a);
    const task = await taskRow(taskId);
    const pending = await stage(taskId, runId, emailAsUser());
    await submit(pending.cartId);
    const released = await stage(taskId, runId, emailAsUser({ actionType: 'email_as_assistant' }));
    await submit(released.cartId);
    const laterRun = await db().transaction((tx) => queueRun(tx, task, 'wake'));
    const open = await stage(taskId, laterRun.id, emailAsUser());

    const shown = await call(app(), `/tasks/${taskId}`, { key: a.key });
    expect(shown.body.task.pendingCart).toMatchObject({ id: pending.cartId, status: 'pending_approval', dispatchCount: 1, contentHash: expect.any(String) });
    expect((await call(app(), `/tasks/${taskId}/mark-done`, { key: a.key, body: {} })).status).toBe(200);
    expect(await statusOf(pending.cartId)).toBe('cancelled');
    expect(await statusOf(open.cartId)).toBe('cancelled');
    expect(await statusOf(released.cartId)).toBe('approved');
    expect((await db().select().from(carts).where(eq(carts.id, pending.cartId)))[0].reason).toBe('The task was marked done');
    expect(await pendingCartSummary(db(), taskId)).toBeNull();
    expect((await call(app(), `/tasks/${taskId}`, { key: a.key })).body.task.pendingCart).toBeNull();
    // Discarding again finds nothing left to discard.
    expect(await db().transaction((tx) => discardTaskCarts(tx, taskId, 'again'))).toEqual([]);
  });

  it('an empty cart at the end of the run is cancelled, never shown', async () => {
    const { a } = await setup();
    const { taskId, runId } = await runningTask(a);
    const { cartId } = await stage(taskId, runId, emailAsUser());
    expect((await call(app(), `/portal/carts/${cartId}/dispatches/0`, { method: 'DELETE', key: a.key })).body).toMatchObject({ status: 409, error_code: 'cart_not_editable' });
    // Removing staged work is the person's job once it is shown; a run that staged nothing submits nothing.
    await db().update(cartDispatches).set({ removedAt: new Date() }).where(eq(cartDispatches.cartId, cartId));
    expect(await submit(cartId)).toMatchObject({ next: 'none', status: 'cancelled' });
  });
});

describe('editing dispatches', () => {
  it('edit keeps a new version per change, with a new hash, and marks the text as the user’s', async () => {
    const { a } = await setup();
    const { cartId } = await pendingCart(a, [emailAsUser(), sms()]);
    const before = await read(a, cartId);
    const hashes = new Set([before.contentHash]);
    const changes: Record<string, unknown>[] = [
      { subject: 'Dinner, take two' },
      { body: 'Hi Bob,\nFriday at 8?' },
      { validUntil: new Date(Date.now() + 86_400_000).toISOString().replace('Z', '+00:00') },
      { evergreen: true },
    ];
    let last = before;
    for (const change of changes) {
      const res = await edit(a, cartId, 0, change);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const cart = CartEnvelope.parse(res.body).cart;
      expect(cart.dispatches[0]).toMatchObject({ ...change, editedByUser: true });
      expect(cart.dispatches[0].currentVersionId).not.toBe(last.dispatches[0].currentVersionId);
      expect(cart.dispatches[1]).toEqual(last.dispatches[1]);
      hashes.add(cart.contentHash);
      last = cart;
    }
    expect(hashes.size).toBe(changes.length + 1);
    expect(await db().select().from(cartDispatchVersions).where(eq(cartDispatchVersions.cartId, cartId))).toHaveLength(2 + changes.length);
    expect(await read(a, cartId)).toEqual(last);
    // The same text again is not a change: no new version, same hash.
    expect(CartEnvelope.parse((await edit(a, cartId, 0, { evergreen: true })).body).cart.contentHash).toBe(last.contentHash);
    // A message's body can be edited too.
    expect(CartEnvelope.parse((await edit(a, cartId, 1, { body: 'Running late' })).body).cart.dispatches[1]).toMatchObject({ body: 'Running late', editedByUser: true });
  });

  it('edit refuses recipients, payload, fields the type lacks, past or offset-less validity, and empty edits, changing nothing', async () => {
    const { a } = await setup();
    const { cartId } = await pendingCart(a, [emailAsUser(), sms()]);
    const before = await read(a, cartId);
    for (const body of [{ to: ['eve@example.org'] }, { cc: ['eve@example.org'] }, { bcc: ['eve@example.org'], body: 'x' }, { payload: { a: 1 } }]) {
      const res = await edit(a, cartId, 0, body);
      expect(res.body, JSON.stringify(body)).toMatchObject({ status: 400, error_code: 'edit_not_supported' });
    }
    expect((await edit(a, cartId, 1, { subject: 'Hey' })).body).toMatchObject({ status: 400, error_code: 'edit_not_supported' });
    const past = await edit(a, cartId, 0, { validUntil: '2001-01-01T00:00:00+00:00' });
    expect(past.status).toBe(400);
    expect(past.body.error).toContain('validUntil');
    expect((await edit(a, cartId, 0, { validUntil: '2099-01-01T00:00:00' })).status).toBe(400);
    expect((await edit(a, cartId, 0, {})).status).toBe(400);
    expect((await edit(a, cartId, 7, { body: 'x' })).status).toBe(404);
    // Sending the recipients it already has is not a change to them.
    expect((await edit(a, cartId, 0, { to: ['bob@example.org'], subject: 'Same people' })).status).toBe(200);
    expect((await read(a, cartId)).dispatches[0].to).toEqual(before.dispatches[0].to);
  });

  it('PATCH a dispatch changes recipients and payload as its type allows; each change is a new hash', async () => {
    const { a } = await setup();
    const event: StagedDispatch = { type: 'calendar_event', platform: 'calendar', actionType: 'calendar', to: ['bob@example.org'], payload: { title: 'Dinner', start: '2099-01-01T19:00:00Z', end: '2099-01-01T21:00:00Z' } };
    const { cartId } = await pendingCart(a, [emailAsUser(), event]);
    const seen = new Set([(await read(a, cartId)).contentHash]);
    for (const [index, body] of [
      [0, { to: ['Bob Smith <bob@example.org>', 'eve@example.org'] }],
      [0, { cc: ['carol@example.org'] }],
      [0, { bcc: ['dan@example.org'] }],
      [0, { subject: 'New subject', body: 'New body' }],
      [1, { payload: { title: 'Dinner', start: '2099-01-01T20:00:00Z', end: '2099-01-01T22:00:00Z' } }],
      [1, { to: ['eve@example.org'] }],
    ] as const) {
      const res = await update(a, cartId, index, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const cart = CartEnvelope.parse(res.body).cart;
      expect(cart.dispatches[index]).toMatchObject({ ...body, editedByUser: true });
      seen.add(cart.contentHash);
    }
    expect(seen.size).toBe(7);

    const badEmail = await update(a, cartId, 0, { to: ['not-an-address'] });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.error).toContain('to.0');
    expect((await update(a, cartId, 0, { to: [], cc: [], bcc: [] })).status).toBe(400);
    const foreign = await update(a, cartId, 0, { payload: { x: 1 } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toContain('payload');
    expect((await update(a, cartId, 1, { subject: 'x' })).status).toBe(400);
    expect((await update(a, cartId, 0, {})).status).toBe(400);
  });

  it('DELETE removes a dispatch (the others keep their index); a cart with none left stays pending until cancelled', async () => {
    const { a } = await setup();
    const { cartId } = await pendingCart(a, [emailAsUser(), sms(), emailAsUser({ to: ['dan@example.org'] })]);
    const before = await read(a, cartId);
    const res = await call(app(), `/portal/carts/${cartId}/dispatches/1`, { method: 'DELETE', key: a.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const cart = CartEnvelope.parse(res.body).cart;
    expect(cart.dispatches.map((d) => d.index)).toEqual([0, 2]);
    expect(cart.dispatches).toEqual([before.dispatches[0], before.dispatches[2]]);
    expect(cart.contentHash).not.toBe(before.contentHash);
    expect((await call(app(), `/portal/carts/${cartId}/dispatches/1`, { method: 'DELETE', key: a.key })).status).toBe(404);
    expect((await edit(a, cartId, 1, { body: 'x' })).status).toBe(404);

    for (const i of [0, 2]) expect((await call(app(), `/portal/carts/${cartId}/dispatches/${i}`, { method: 'DELETE', key: a.key })).status).toBe(200);
    const empty = await read(a, cartId);
    expect(empty).toMatchObject({ status: 'pending_approval', dispatches: [] });
    expect(ListCartsResponse.parse((await call(app(), '/portal/carts', { key: a.key })).body).carts.map((c) => c.id)).toContain(cartId);
    expect((await call(app(), `/portal/carts/${cartId}/cancel`, { key: a.key, body: {} })).status).toBe(200);
  });
});

describe('snapshots', () => {
  it('lists nothing before anything ran', async () => {
    const { a } = await setup();
    const { cartId } = await pendingCart(a);
    const res = await call(app(), `/portal/carts/${cartId}/snapshots`, { key: a.key });
    expect(res.status).toBe(200);
    expect(SnapshotsResponse.parse(res.body)).toEqual({ ok: true, cartId, count: 0, snapshots: [] });
  });
});

describe('who reaches a cart', () => {
  it('another user’s cart is 404 on every call, and their list never shows it', async () => {
    const { a, b } = await setup();
    const { cartId } = await pendingCart(a);
    const { contentHash } = await read(a, cartId);
    const base = `/portal/carts/${cartId}`;
    const calls = [
      call(app(), base, { key: b.key }),
      call(app(), `${base}/snapshots`, { key: b.key }),
      approve(b, cartId, { contentHash }),
      call(app(), `${base}/cancel`, { key: b.key, body: {} }),
      edit(b, cartId, 0, { body: 'x' }),
      update(b, cartId, 0, { body: 'x' }),
      call(app(), `${base}/dispatches/0`, { method: 'DELETE', key: b.key }),
      // The account key acting as b is b.
      call(app(), base, { key: a.acct.key, as: b.email }),
    ];
    for (const res of await Promise.all(calls)) expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect(await read(a, cartId)).toMatchObject({ status: 'pending_approval', contentHash });
  });

  it('a caller not acting as a person gets 403: account key without X-User-Email, certificate tokens', async () => {
    const { acct, a } = await setup();
    const { cartId } = await pendingCart(a);
    const { contentHash } = await read(a, cartId);
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { kid } = await registerCertificate(db(), acct.accountId, publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const now = Math.floor(Date.now() / 1000);
    const cert = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(await importPKCS8(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256'));
    const base = `/portal/carts/${cartId}`;
    const attempts = (key: string, as?: string) => [
      call(app(), '/portal/carts', { key, as }),
      call(app(), base, { key, as }),
      call(app(), `${base}/snapshots`, { key, as }),
      call(app(), `${base}/approve`, { key, as, body: { contentHash } }),
      call(app(), `${base}/cancel`, { key, as, body: {} }),
      call(app(), `${base}/dispatches/0/edit`, { method: 'PATCH', key, as, body: { body: 'x' } }),
      call(app(), `${base}/dispatches/0`, { method: 'PATCH', key, as, body: { body: 'x' } }),
      call(app(), `${base}/dispatches/0`, { method: 'DELETE', key, as }),
    ];
    for (const res of await Promise.all([...attempts(acct.key), ...attempts(cert), ...attempts(cert, a.email)])) {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
    }
    expect(await read(a, cartId)).toMatchObject({ status: 'pending_approval', contentHash });
    // The account key acting as the owner is the owner.
    const asOwner = await call(app(), `${base}/approve`, { key: acct.key, as: a.email, body: { contentHash } });
    expect(asOwner.body).toEqual({ ok: true, cartId, status: 'approved' });
  });

  it('a task run acting for the owner may read but never decide', async () => {
    const { a } = await setup();
    const { cartId, taskId, runId } = await pendingCart(a);
    const actor = (await ownerActor(db(), await taskRow(taskId), runId))!;
    const { getCart, approveCart, cancelCart } = await import('@/server/approvals/service');
    const { contentHash } = (await getCart(db(), actor, cartId)).cart;
    await expect(approveCart(db(), actor, cartId, { contentHash })).rejects.toMatchObject({ status: 403 });
    await expect(cancelCart(db(), actor, cartId, {})).rejects.toMatchObject({ status: 403 });
    expect(await statusOf(cartId)).toBe('pending_approval');
  });
});
