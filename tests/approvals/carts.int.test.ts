import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { pendingCartSummary } from '@/db/queries/carts';
import { cartDispatches, cartDispatchVersions, carts, tasks } from '@/db/schema';
import { ownerActor } from '@/server/agent/runtime/owner-actor';
import { CartEnvelope, ListCartsResponse } from '@/server/approvals/contracts';
import { discardTaskCarts } from '@/server/approvals/discard';
import { stageDispatch } from '@/server/approvals/staging';
import { queueRun } from '@/server/tasks/runs';
import { call } from '../helpers/client';
import { useCartWorld } from './cart-world';

/** Carts through the API: staging and submission, the list, approval with the hash read, and the state table. */
const { app, db, person, setup, runningTask, taskRow, stage, submit, emailAsUser, sms, pendingCart, read, approve, edit, update, statusOf } = useCartWorld();

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
        heldBecause: null,
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
