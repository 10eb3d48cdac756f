import { describe, expect, it } from 'vitest';
import { CreateIdentifierResponse } from '@/server/identifiers/contracts';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

async function setup() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  await call(app(), `/users/${u.id}`, { key: acct.key, method: 'PUT', body: {} });
  return { acct, u, key: await userKey(app(), acct, u.id) };
}

describe('identifiers', () => {
  it('phones are stored in E.164 using the user’s country; unparseable phones are 400 invalid_phone', async () => {
    const { acct, u, key } = await setup();
    await call(app(), '/profile', { key, method: 'PATCH', body: { country: 'US' } });
    const res = await call(app(), '/identifiers', { key, body: { type: 'phone', value: '(415) 555-2671', label: 'mobile' } });
    expect(res.status).toBe(201);
    const body = CreateIdentifierResponse.parse(res.body);
    expect(body.identifier).toMatchObject({ type: 'phone', value: '+14155552671', verified: false, primary: false, label: 'mobile', iMessageCapable: false, whatsAppCapable: false });
    expect(body.user.id).toBe(u.id);
    const bad = await call(app(), '/identifiers', { key, body: { type: 'phone', value: '12' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe('invalid_phone');
    const dup = await call(app(), '/identifiers', { key: acct.key, body: { type: 'phone', value: '+1 415 555 2671', userId: (await newUser(app(), acct)).id } });
    expect(dup.status).toBe(400);
  });

  it('verified is honoured only from account-wide credentials', async () => {
    const { acct, u, key } = await setup();
    const asUser = await call(app(), '/identifiers', { key, body: { type: 'email', value: 'Alt@Example.org', verified: true } });
    expect(asUser.body.identifier).toMatchObject({ value: 'alt@example.org', verified: false });
    const asAccount = await call(app(), '/identifiers', { key: acct.key, body: { type: 'email', value: 'work@example.org', verified: true, userId: u.id } });
    expect(asAccount.body.identifier.verified).toBe(true);
    // A verified secondary email now acts as the user; the unverified one does not.
    expect((await call(app(), '/me', { key: acct.key, as: 'work@example.org' })).body.userId).toBe(u.id);
    expect((await call(app(), '/me', { key: acct.key, as: 'alt@example.org' })).status).toBe(401);
    expect((await call(app(), '/identifiers', { key: acct.key, body: { type: 'custom', value: 'x' } })).status).toBe(400);
    const list = await call(app(), '/identifiers?type=email', { key });
    expect(list.body.identifiers.map((i: { value: string }) => i.value)).toEqual([u.email, 'alt@example.org', 'work@example.org']);
  });

  it('make-primary changes the user’s email; the primary email and the last identifier cannot be deleted', async () => {
    const { acct, u, key } = await setup();
    const alt = (await call(app(), '/identifiers', { key: acct.key, body: { type: 'email', value: 'second@example.org', userId: u.id, verified: true } })).body.identifier;
    const primary = (await call(app(), '/identifiers?type=email', { key })).body.identifiers.find((i: { primary: boolean }) => i.primary);
    expect((await call(app(), `/identifiers/${primary.id}`, { key, method: 'DELETE' })).status).toBe(400);
    const made = await call(app(), `/identifiers/${alt.id}/make-primary`, { key, method: 'POST' });
    expect(made.body.user.email).toBe('second@example.org');
    expect(made.body.identifier.primary).toBe(true);
    expect((await call(app(), `/identifiers/${primary.id}`, { key, method: 'DELETE' })).body).toEqual({ ok: true, identifier: { id: primary.id, deleted: true } });
    expect((await call(app(), `/identifiers/${alt.id}`, { key, method: 'DELETE' })).status).toBe(400);
    const phone = (await call(app(), '/identifiers', { key, body: { type: 'phone', value: '+442071838750' } })).body.identifier;
    expect((await call(app(), `/identifiers/${phone.id}/make-primary`, { key, method: 'POST' })).status).toBe(400);
  });

  it('link moves an identifier to another user, for account-wide credentials only', async () => {
    const { acct, u, key } = await setup();
    const other = await newUser(app(), acct);
    const handle = (await call(app(), '/identifiers', { key, body: { type: 'external_id', value: 'crm-42' } })).body.identifier;
    expect((await call(app(), `/identifiers/${handle.id}/link`, { key, body: { userId: other.id } })).status).toBe(403);
    const linked = await call(app(), `/identifiers/${handle.id}/link`, { key: acct.key, body: { userId: other.id } });
    expect(linked.body.user.id).toBe(other.id);
    expect((await call(app(), '/identifiers', { key })).body.identifiers.map((i: { value: string }) => i.value)).toEqual([u.email]);
    expect((await call(app(), `/identifiers/${handle.id}`, { key, method: 'DELETE' })).status).toBe(404);
  });
});
