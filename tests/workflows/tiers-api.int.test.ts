import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/** The segments API and the account's default tiers (docs/model-tiers.md): account-wide keys only, 400 naming fields, 404 across accounts. */
const app = useTestServer();
const segment = (acct: AccountFixture, body: Record<string, unknown>) => call(app(), '/model-tier-segments', { key: acct.key, body });

describe('segments API', () => {
  it('creates, lists, changes and deletes segments with an account key; names fields on bad input', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const bad = await segment(acct, { name: 'x', task: 'huge', userIds: ['nope', u.id] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('task');

    const unknown = await segment(acct, { name: 'x', task: 'low', userIds: [u.id, 'nope'], teamIds: ['missing'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain('userIds[1]');
    expect(unknown.body.error).toContain('teamIds[0]');

    const made = await segment(acct, { name: 'vip', chat: 'high', task: 'ultra', userIds: [u.id] });
    expect(made.status).toBe(201);
    expect(made.body.segment).toMatchObject({ name: 'vip', modelTiers: { chat: 'high', task: 'ultra' }, userIds: [u.id], teamIds: [], organizationIds: [] });
    expect((await segment(acct, { name: 'vip', task: 'low' })).status).toBe(409);

    const id = made.body.segment.id;
    const listed = await call(app(), '/model-tier-segments', { key: acct.key });
    expect(listed.body.segments.map((s: any) => s.id)).toEqual([id]);
    const changed = await call(app(), `/model-tier-segments/${id}`, { method: 'PATCH', key: acct.key, body: { chat: null } });
    expect(changed.body.segment.modelTiers).toEqual({ chat: null, task: 'ultra' });

    // Acting as a user is refused; another account does not see it.
    expect((await call(app(), '/model-tier-segments', { key: acct.key, as: u.email })).status).toBe(403);
    const other = await newAccount(app(), 'Other');
    expect((await call(app(), `/model-tier-segments/${id}`, { key: other.key })).status).toBe(404);
    expect((await call(app(), `/model-tier-segments/${id}`, { method: 'DELETE', key: other.key })).status).toBe(404);
    // Members of another account cannot be listed.
    const stranger = await newUser(app(), other);
    expect((await call(app(), '/model-tier-segments', { key: other.key, body: { name: 'steal', task: 'low', userIds: [u.id, stranger.id] } })).status).toBe(400);

    expect((await call(app(), `/model-tier-segments/${id}`, { method: 'DELETE', key: acct.key })).status).toBe(200);
    expect((await call(app(), `/model-tier-segments/${id}`, { key: acct.key })).status).toBe(404);
  });

  it('the account default tiers refuse a tier outside the four', async () => {
    const acct = await newAccount(app());
    const bad = await call(app(), '/settings/model-tiers', { method: 'PATCH', key: acct.key, body: { chat: 'max' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('chat');
    const ok = await call(app(), '/settings/model-tiers', { method: 'PATCH', key: acct.key, body: { chat: 'low' } });
    expect(ok.body).toMatchObject({ modelTiers: { chat: 'low', task: null }, effective: { chat: 'low', task: 'medium' } });
  });
});

describe('admin CLI set-segment', () => {
  it('creates a segment, then changes it by name; bad input names the option', async () => {
    const { admin } = await import('../helpers/admin-cli');
    const url = app().database.pool.options.connectionString as string;
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const made = await admin(url, 'set-segment', '--account', acct.accountId, '--name', 'pilots', '--task', 'ultra', '--users', u.id);
    expect(made.code, made.stdout).toBe(0);
    expect(made.out.segment).toMatchObject({ name: 'pilots', modelTiers: { chat: null, task: 'ultra' }, userIds: [u.id] });
    const changed = await admin(url, 'set-segment', '--account', acct.accountId, '--name', 'pilots', '--chat', 'low', '--task', 'none');
    expect(changed.out.segment).toMatchObject({ id: made.out.segment.id, modelTiers: { chat: 'low', task: null }, userIds: [u.id] });
    const listed = await call(app(), '/model-tier-segments', { key: acct.key });
    expect(listed.body.segments).toHaveLength(1);
    const bad = await admin(url, 'set-segment', '--account', acct.accountId, '--name', 'pilots', '--task', 'turbo');
    expect(bad.code).toBe(1);
    expect(bad.out.error).toContain('task');
  });
});
