import { describe, expect, it } from 'vitest';
import { AssistantEnvelope, ListAssistantsResponse, RosterResponse } from '@/server/assistants/contracts';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

async function setup() {
  const acct = await newAccount(app());
  const a = await newUser(app(), acct);
  const b = await newUser(app(), acct);
  return { acct, a: { ...a, key: await userKey(app(), acct, a.id) }, b: { ...b, key: await userKey(app(), acct, b.id) } };
}

describe('assistants', () => {
  it('account key creates assistants of each scope with unique emails; scope decides who sees them', async () => {
    const { acct, a, b } = await setup();
    const shared = await call(app(), '/assistants', { key: acct.key, body: { name: 'Ava', email: 'ava@assist.example', personality: 'warm' } });
    expect(shared.status).toBe(201);
    const ava = AssistantEnvelope.parse(shared.body).assistant;
    expect(ava).toMatchObject({ scope: 'account', talkToStrangers: true, status: 'active', channels: { imessage: null, voice: { status: 'none' } } });
    expect((await call(app(), '/assistants', { key: acct.key, body: { name: 'Dup', email: 'AVA@assist.example' } })).status).toBe(400);
    const teamOnly = (await call(app(), '/assistants', { key: acct.key, body: { name: 'Tess', email: 'tess@assist.example', scope: 'team', team: a.teamId } })).body.assistant;
    expect((await call(app(), '/assistants', { key: acct.key, body: { name: 'X', email: 'x@assist.example', scope: 'team' } })).status).toBe(400);
    expect((await call(app(), '/assistants', { key: a.key, body: { name: 'Mine', email: 'mine@assist.example' } })).status).toBe(403);

    const seenByA = ListAssistantsResponse.parse((await call(app(), '/assistants', { key: a.key })).body).assistants.map((x) => x.name);
    expect(seenByA).toEqual(['Ava', 'Tess']);
    expect((await call(app(), '/assistants', { key: b.key })).body.assistants.map((x: { name: string }) => x.name)).toEqual(['Ava']);
    expect((await call(app(), `/assistants/${teamOnly.id}`, { key: b.key })).status).toBe(404);
    expect((await call(app(), '/assistants?email=ava@assist.example', { key: acct.key })).body.total).toBe(1);
    const other = await newAccount(app());
    expect((await call(app(), `/assistants/${ava.id}`, { key: other.key })).status).toBe(404);
  });

  it('an assistant address belongs to one account of the deployment: mail to it must reach exactly one', async () => {
    const hire = async () => {
      const acct = await newAccount(app());
      const u = await newUser(app(), acct);
      const key = await userKey(app(), acct, u.id);
      const res = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Ada Lovelace' } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return { acct, email: res.body.assistant.email as string };
    };
    const one = await hire();
    const two = await hire();
    expect(two.email).not.toBe(one.email);
    const taken = await call(app(), '/assistants', { key: two.acct.key, body: { name: 'Copy', email: one.email.toUpperCase() } });
    expect(taken.status).toBe(400);
    expect(JSON.stringify(taken.body)).toContain('email');
    const check = await call(app(), `/assistants/check-email?slug=${encodeURIComponent(one.email.split('@')[0])}`, { key: two.acct.key });
    expect(check.status).toBe(200);
    expect(check.body.available).toBe(false);
  });

  it('roster: create-and-hire is idempotent on name; the first becomes primary; hire refuses invisible assistants', async () => {
    const { acct, a, b } = await setup();
    const first = await call(app(), `/users/${a.id}/assistants`, { key: a.key, body: { name: 'Max', avatar: 'https://img.example/max.png' } });
    expect(first.status).toBe(201);
    expect(first.body.assistant).toMatchObject({ scope: 'user', user: a.id, isPrimary: true, avatarUrl: 'https://img.example/max.png' });
    expect(first.body.assistant.email).toMatch(/^max@/);
    const again = await call(app(), `/users/${a.id}/assistants`, { key: a.key, body: { name: 'max' } });
    expect(again.status).toBe(200);
    expect(again.body.assistant.id).toBe(first.body.assistant.id);
    const second = await call(app(), `/users/${a.id}/assistants`, { key: a.key, body: { name: 'Max Two', avatar: 'data:image/png;base64,iVBORw0KGgo=' } });
    expect(second.body.assistant.isPrimary).toBe(false);
    expect((await call(app(), `/users/${a.id}/assistants`, { key: a.key, body: { name: 'Bad', avatar: 'ftp://x' } })).status).toBe(400);

    const shared = (await call(app(), '/assistants', { key: acct.key, body: { name: 'Ava', email: 'ava2@assist.example' } })).body.assistant;
    const hired = await call(app(), `/users/${b.id}/assistants/${shared.id}/hire`, { key: b.key, method: 'POST' });
    expect(hired.body.user.assistant).toBe(shared.id);
    expect((await call(app(), `/users/${b.id}/assistants/${first.body.assistant.id}/hire`, { key: acct.key, method: 'POST' })).status).toBe(403);

    const made = await call(app(), `/users/${a.id}/assistants/${second.body.assistant.id}/primary`, { key: a.key, method: 'POST' });
    expect(made.body.user.assistant).toBe(second.body.assistant.id);
    const roster = RosterResponse.parse((await call(app(), `/users/${a.id}/assistants`, { key: a.key })).body);
    expect(roster.primaryAssistantId).toBe(second.body.assistant.id);
    expect(roster.assistants.map((x) => [x.name, x.isPrimary])).toEqual([
      ['Max', false],
      ['Max Two', true],
    ]);
    expect((await call(app(), `/users/${a.id}/assistants/${shared.id}/primary`, { key: a.key, method: 'POST' })).status).toBe(403);
  });

  it('release: 409 for the primary, 403 for shared assistants; a released address is retired and free again', async () => {
    const { acct, a } = await setup();
    const own = (await call(app(), `/users/${a.id}/assistants`, { key: a.key, body: { name: 'Primo' } })).body.assistant;
    const extra = (await call(app(), `/users/${a.id}/assistants`, { key: a.key, body: { name: 'Extra', email: 'extra@assist.example' } })).body.assistant;
    const shared = (await call(app(), '/assistants', { key: acct.key, body: { name: 'Ava', email: 'ava3@assist.example' } })).body.assistant;
    await call(app(), `/users/${a.id}/assistants/${shared.id}/hire`, { key: a.key, method: 'POST' });
    expect((await call(app(), `/users/${a.id}/assistants/${own.id}`, { key: a.key, method: 'DELETE' })).status).toBe(409);
    expect((await call(app(), `/users/${a.id}/assistants/${shared.id}`, { key: a.key, method: 'DELETE' })).status).toBe(403);
    const released = await call(app(), `/users/${a.id}/assistants/${extra.id}?transfer=primary`, { key: a.key, method: 'DELETE' });
    expect(released.body.assistant).toMatchObject({ id: extra.id, deleted: true });
    expect((await call(app(), `/assistants/${extra.id}`, { key: acct.key })).status).toBe(404);
    expect((await call(app(), '/assistants/check-email?slug=extra', { key: acct.key })).body).toMatchObject({ available: true });
    expect(own.email).toMatch(/^primo@/);
    expect((await call(app(), '/assistants/check-email?slug=primo', { key: acct.key })).body).toMatchObject({ available: false, email: own.email });
    const gen = await call(app(), '/assistants/generate?name=Primo', { key: acct.key });
    expect(gen.body.suggestions[0]).toMatch(/^primo2@/);
  });

  it('PUT and DELETE: users change only their own assistants; account keys change any', async () => {
    const { acct, a, b } = await setup();
    const own = (await call(app(), `/users/${a.id}/assistants`, { key: a.key, body: { name: 'Mine' } })).body.assistant;
    const shared = (await call(app(), '/assistants', { key: acct.key, body: { name: 'Ava', email: 'ava4@assist.example' } })).body.assistant;
    const put = await call(app(), `/assistants/${own.id}`, { key: a.key, method: 'PUT', body: { tagline: 'Here to help', writingStyle: { humor: 2 }, voice: { provider: 'acme', voiceId: 'v1' } } });
    expect(put.body.assistant).toMatchObject({ tagline: 'Here to help', writingStyle: { humor: 2 }, voice: { provider: 'acme', voiceId: 'v1' } });
    expect((await call(app(), `/assistants/${shared.id}`, { key: a.key, method: 'PUT', body: { tagline: 'no' } })).status).toBe(403);
    expect((await call(app(), `/assistants/${own.id}`, { key: b.key, method: 'PUT', body: { tagline: 'no' } })).status).toBe(404);
    expect((await call(app(), `/assistants/${own.id}`, { key: a.key, method: 'PUT', body: { writingStyle: { humor: 9 } } })).status).toBe(400);
    const del = await call(app(), `/assistants/${shared.id}`, { key: acct.key, method: 'DELETE' });
    expect(del.body.assistant).toMatchObject({ id: shared.id, deleted: true });
  });
});

describe('assistants and other resources', () => {
  it('PUT /users assistantEmail hires and makes primary; organizations validate defaultAssistant; deleting a team detaches its assistants', async () => {
    const { acct, a } = await setup();
    const shared = (await call(app(), '/assistants', { key: acct.key, body: { name: 'Ava', email: 'ava5@assist.example' } })).body.assistant;
    const put = await call(app(), `/users/${a.id}`, { key: acct.key, method: 'PUT', body: { assistantEmail: 'AVA5@assist.example' } });
    expect(put.body.user.assistant).toBe(shared.id);
    expect((await call(app(), `/users/${a.id}/assistants`, { key: a.key })).body.primaryAssistantId).toBe(shared.id);
    expect((await call(app(), `/users/${a.id}`, { key: acct.key, method: 'PUT', body: { assistantEmail: 'nobody@assist.example' } })).status).toBe(404);
    const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'O' } })).body.organization;
    expect((await call(app(), `/organizations/${org.id}`, { key: acct.key, method: 'PUT', body: { defaultAssistant: 'ffffffffffffffffffffffff' } })).status).toBe(404);
    expect((await call(app(), `/organizations/${org.id}`, { key: acct.key, method: 'PUT', body: { defaultAssistant: shared.id } })).body.organization.defaultAssistant).toBe(shared.id);
    const teamBot = (await call(app(), '/assistants', { key: acct.key, body: { name: 'Tb', email: 'tb@assist.example', scope: 'team', team: a.teamId } })).body.assistant;
    await call(app(), `/teams/${a.teamId}`, { key: acct.key, method: 'DELETE' });
    expect((await call(app(), `/assistants/${teamBot.id}`, { key: acct.key })).body.assistant).toMatchObject({ team: null, status: 'inactive' });
  });
});
