import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser, uniqueEmail } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * An organization's defaultAssistant: only an assistant every member can use may be it, and every
 * person placed in the organization (added directly, moved in) finds it on their roster, primary
 * when they had none; a person who already had a primary keeps it.
 */

const app = useTestServer();

async function setup() {
  const acct = await newAccount(app());
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Default Co' } })).body.organization;
  const shared = await call(app(), '/assistants', { key: acct.key, body: { name: 'Front Desk', email: uniqueEmail('frontdesk') } });
  expect(shared.status, JSON.stringify(shared.body)).toBe(201);
  return { acct, org, shared: shared.body.assistant as { id: string } };
}

const roster = async (key: string, userId: string) => (await call(app(), `/users/${userId}/assistants`, { key })).body;

describe('organization defaultAssistant', () => {
  it('must be usable by every member: a person’s own assistant is 400 naming the field; an account-wide one is kept', async () => {
    const { acct, org, shared } = await setup();
    const someone = await newUser(app(), acct);
    const own = await call(app(), `/users/${someone.id}/assistants`, { key: acct.key, body: { name: 'Mine' } });
    expect(own.status).toBe(201);
    const refused = await call(app(), `/organizations/${org.id}`, { key: acct.key, method: 'PUT', body: { defaultAssistant: own.body.assistant.id } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('defaultAssistant');
    expect((await call(app(), `/organizations/${org.id}`, { key: acct.key })).body.organization.defaultAssistant).toBeNull();
    const set = await call(app(), `/organizations/${org.id}`, { key: acct.key, method: 'PUT', body: { defaultAssistant: shared.id } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.organization.defaultAssistant).toBe(shared.id);
  });

  it('a person added directly, or moved into the organization, has it on their roster (primary when they had none); an existing primary stays', async () => {
    const { acct, org, shared } = await setup();
    expect((await call(app(), `/organizations/${org.id}`, { key: acct.key, method: 'PUT', body: { defaultAssistant: shared.id } })).status).toBe(200);

    const added = await call(app(), `/organizations/${org.id}/members`, { key: acct.key, body: { email: uniqueEmail('added') } });
    expect(added.status, JSON.stringify(added.body)).toBeLessThan(300);
    const newcomer = await roster(acct.key, added.body.member.id);
    expect(newcomer.assistants.map((a: { id: string }) => a.id)).toEqual([shared.id]);
    expect(newcomer.primaryAssistantId).toBe(shared.id);

    const mover = await newUser(app(), acct);
    const mine = await call(app(), `/users/${mover.id}/assistants`, { key: acct.key, body: { name: 'Own one' } });
    const moved = await call(app(), `/users/${mover.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const after = await roster(acct.key, mover.id);
    expect(after.assistants.map((a: { id: string }) => a.id).sort()).toEqual([mine.body.assistant.id, shared.id].sort());
    expect(after.primaryAssistantId).toBe(mine.body.assistant.id);
  });
});
