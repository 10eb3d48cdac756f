import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * Team-scoped contacts are shown to the team's active members (read only: a teammate's change is
 * 403, anyone else 404), and relationships between a user's contacts are written through
 * POST /contacts/{contactId}/relationships and DELETE …/relationships/{relationshipId}.
 */
const app = useTestServer();

async function team() {
  const acct = await newAccount(app());
  const a = await newUser(app(), acct);
  const b = await newUser(app(), acct, { teamId: a.teamId });
  const outsider = await newUser(app(), acct);
  const k = async (u: { id: string }) => userKey(app(), acct, u.id);
  return { acct, a: { ...a, key: await k(a) }, b: { ...b, key: await k(b) }, outsider: { ...outsider, key: await k(outsider) } };
}

const create = (key: string, body: Record<string, unknown>) => call(app(), '/contacts', { key, body });

describe('team-scoped contacts', () => {
  it('are read by teammates, changed only by their owner, invisible to others', async () => {
    const { a, b, outsider } = await team();
    const shared = await create(a.key, { email: 'client@acme.example', name: 'Client', scope: 'team' });
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    expect(shared.body.contact).toMatchObject({ scope: 'team', team: a.teamId });
    const private_ = await create(a.key, { email: 'friend@home.example', name: 'Friend' });
    const id = shared.body.contact.id;

    expect((await call(app(), `/contacts/${id}`, { key: b.key })).body.contact).toMatchObject({ id, name: 'Client' });
    expect((await call(app(), `/contacts/${private_.body.contact.id}`, { key: b.key })).status).toBe(404);
    expect((await call(app(), `/contacts/${id}`, { key: outsider.key })).status).toBe(404);
    const listed = await call(app(), '/contacts', { key: b.key });
    expect(listed.body.contacts.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(listed.body.total).toBe(1);
    expect((await call(app(), '/contacts?q=acme', { key: b.key })).body.total).toBe(1);
    expect((await call(app(), '/contacts', { key: outsider.key })).body.total).toBe(0);

    expect((await call(app(), `/contacts/${id}`, { key: b.key, method: 'PUT', body: { name: 'Changed' } })).status).toBe(403);
    expect((await call(app(), `/contacts/${id}`, { key: b.key, method: 'DELETE' })).status).toBe(403);
    expect((await call(app(), `/contacts/${id}`, { key: outsider.key, method: 'DELETE' })).status).toBe(404);
    // A team the user is not an active member of is refused.
    const other = await create(outsider.key, { email: 'x@y.example', scope: 'team', team: a.teamId });
    expect(other.status).toBe(403);
    // Back to the user's own scope: teammates no longer see it.
    expect((await call(app(), `/contacts/${id}`, { key: a.key, method: 'PUT', body: { scope: 'user' } })).body.contact).toMatchObject({ scope: 'user', team: null });
    expect((await call(app(), `/contacts/${id}`, { key: b.key })).status).toBe(404);
  });
});

describe('relationships', () => {
  it('are added once, shown both ways, removed; only between the owner’s own contacts', async () => {
    const { a, b } = await team();
    const boss = (await create(a.key, { email: 'boss@acme.example', name: 'Boss', scope: 'team' })).body.contact;
    const report = (await create(a.key, { email: 'report@acme.example', name: 'Report', scope: 'team' })).body.contact;
    const hidden = (await create(a.key, { email: 'spouse@home.example', name: 'Spouse' })).body.contact;
    const path = `/contacts/${report.id}/relationships`;

    const added = await call(app(), path, { key: a.key, body: { toContactId: boss.id, type: 'manager' } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body.relationship).toMatchObject({ fromContactId: report.id, toContactId: boss.id, type: 'manager' });
    const again = await call(app(), path, { key: a.key, body: { toContactId: boss.id, type: 'manager' } });
    expect(again.status).toBe(200);
    expect(again.body.relationship.id).toBe(added.body.relationship.id);
    expect((await call(app(), path, { key: a.key, body: { toContactId: hidden.id, type: 'spouse' } })).status).toBe(201);

    const read = (await call(app(), `/contacts/${report.id}`, { key: a.key })).body.contact;
    expect(read.outgoingRelationships.map((r: { type: string; contact: { id: string } }) => [r.type, r.contact.id]).sort()).toEqual([
      ['manager', boss.id],
      ['spouse', hidden.id],
    ]);
    expect((await call(app(), `/contacts/${boss.id}`, { key: a.key })).body.contact.incomingRelationships).toMatchObject([{ type: 'manager', contact: { id: report.id } }]);
    // A teammate sees the relationship between team contacts, never one to the owner's private contact.
    const seen = (await call(app(), `/contacts/${report.id}`, { key: b.key })).body.contact;
    expect(seen.outgoingRelationships.map((r: { type: string }) => r.type)).toEqual(['manager']);

    const bad = await call(app(), path, { key: a.key, body: { toContactId: report.id, type: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('type');
    expect((await call(app(), path, { key: a.key, body: { toContactId: report.id, type: 'self' } })).status).toBe(400);
    const theirs = (await create(b.key, { email: 'b-only@x.example' })).body.contact;
    expect((await call(app(), path, { key: a.key, body: { toContactId: theirs.id, type: 'peer' } })).status).toBe(404);
    expect((await call(app(), path, { key: b.key, body: { toContactId: boss.id, type: 'peer' } })).status).toBe(403);

    const removed = await call(app(), `${path}/${added.body.relationship.id}`, { key: a.key, method: 'DELETE' });
    expect(removed.body).toEqual({ ok: true, relationship: { id: added.body.relationship.id, deleted: true } });
    expect((await call(app(), `${path}/${added.body.relationship.id}`, { key: a.key, method: 'DELETE' })).status).toBe(404);
  });
});
