import { generateKeyPairSync } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { SignJWT, importPKCS8 } from 'jose';
import { describe, expect, it } from 'vitest';
import { cartDispatchVersions, carts } from '@/db/schema';
import { registerCertificate } from '@/server/accounts/service';
import { ownerActor } from '@/server/agent/runtime/owner-actor';
import { CartEnvelope, ListCartsResponse, SnapshotsResponse, type StagedDispatch } from '@/server/approvals/contracts';
import { call } from '../helpers/client';
import { useCartWorld } from './cart-world';

/** Carts through the API: editing dispatches (versions and hashes), snapshots, and who reaches a cart. */
const { app, db, person, setup, taskRow, emailAsUser, sms, pendingCart, read, approve, edit, update, statusOf } = useCartWorld();

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
