import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/** The Chats resource (spec document 2: Chat, Chat message, Chats endpoints, Authentication). */
const app = useTestServer();

let named = 0;
async function person(acct: AccountFixture, extra: Record<string, unknown> = {}) {
  const u = await newUser(app(), acct, extra);
  const key = await userKey(app(), acct, u.id);
  const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: `Ada ${named++}` } });
  expect(hired.status, JSON.stringify(hired.body)).toBe(201);
  return { ...u, key, assistantId: hired.body.assistant.id as string, assistantEmail: hired.body.assistant.email as string };
}
type Person = Awaited<ReturnType<typeof person>>;
const open = async (p: Person, body: Record<string, unknown> = {}) => {
  const r = await call(app(), '/chats', { key: p.key, body: { assistantId: p.assistantId, ...body } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.chat;
};

describe('a chat', () => {
  it('is created with every field of the spec, read, listed and deleted', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const chat = await open(a, { title: 'Trip planning', metadata: { source: 'app' } });
    expect(chat).toMatchObject({
      title: 'Trip planning',
      status: 'active',
      platform: 'chat',
      user: a.id,
      owner: { id: a.id, email: a.email },
      assistant: a.assistantId,
      assistantInfo: { id: a.assistantId, name: expect.stringMatching(/^Ada /), email: a.assistantEmail },
      participants: [],
      messageCount: 0,
      lastMessageAt: null,
      createdForTaskId: null,
      tags: [],
      metadata: { source: 'app' },
      modelTier: 'medium',
      effort: null,
    });
    expect(Object.keys(chat.owner).sort()).toEqual(['avatar', 'email', 'firstName', 'id', 'lastName']);
    expect((await call(app(), `/chats/${chat.id}`, { key: a.key })).body.chat).toEqual(chat);

    const deleted = await call(app(), `/chats/${chat.id}`, { method: 'DELETE', key: a.key });
    expect(deleted.body).toMatchObject({ ok: true, chat: { id: chat.id, deleted: true } });
    expect((await call(app(), `/chats/${chat.id}`, { key: a.key })).status).toBe(404);
    expect((await call(app(), `/chats/${chat.id}/messages`, { key: a.key })).status).toBe(404);
  });

  it('refuses a missing or foreign assistant, a bad tier, and a caller who is no user', async () => {
    const acct = await newAccount(app());
    const [a, b] = [await person(acct), await person(acct)];
    const missing = await call(app(), '/chats', { key: a.key, body: { title: 'x' } });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('assistantId');
    const foreign = await call(app(), '/chats', { key: a.key, body: { assistantId: b.assistantId } });
    expect(foreign.status).toBe(403);
    const tier = await call(app(), '/chats', { key: a.key, body: { assistantId: a.assistantId, modelTier: 'max' } });
    expect(tier.status).toBe(400);
    expect(JSON.stringify(tier.body)).toContain('modelTier');
    const noUser = await call(app(), '/chats', { key: acct.key, body: { assistantId: a.assistantId } });
    expect(noUser.status).toBe(400);
    expect(noUser.body.error_code).toBe('user_required');
    expect((await call(app(), '/chats', { key: a.key })).body.total).toBe(0);
  });

  it('takes its tier from the caller, else the organization’s chat default, else the account’s, else medium', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    expect((await open(a)).modelTier).toBe('medium');
    expect((await call(app(), '/settings/model-tiers', { method: 'PATCH', key: acct.key, body: { chat: 'low' } })).status).toBe(200);
    expect((await open(a)).modelTier).toBe('low');
    const org = await call(app(), '/organizations', { key: acct.key, body: { name: 'Tier org' } });
    const orgId = org.body.organization.id as string;
    expect((await call(app(), `/users/${a.id}`, { method: 'PUT', key: acct.key, body: { organization: orgId } })).status).toBe(200);
    expect((await call(app(), `/organizations/${orgId}/settings/model-tiers`, { method: 'PATCH', key: acct.key, body: { chat: 'high', task: 'low' } })).status).toBe(200);
    expect((await open(a)).modelTier).toBe('high');
    expect((await open(a, { modelTier: 'ultra' })).modelTier).toBe('ultra');
  });
});

describe('messages', () => {
  it('are added without running the assistant, listed oldest first, and counted on the chat; delivery is read-only', async () => {
    const a = await person(await newAccount(app()));
    const chat = await open(a);
    const first = await call(app(), `/chats/${chat.id}/messages`, { key: a.key, body: { content: 'Line one\nLine two', to: 'bob@example.org', referenceId: 'ext-1', metadata: { k: 1 } } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.message).toMatchObject({ role: 'user', content: 'Line one\nLine two', to: ['bob@example.org'], cc: [], referenceId: 'ext-1', platform: 'chat', delivery: { state: 'internal', taskId: null, cartId: null } });
    const second = await call(app(), `/chats/${chat.id}/messages`, { key: a.key, body: { content: 'Noted', role: 'assistant', delivery: { state: 'provider_accepted' } } });
    expect(second.body.message.delivery.state).toBe('internal');

    const listed = await call(app(), `/chats/${chat.id}/messages?perPage=1&page=2`, { key: a.key });
    expect(listed.body).toMatchObject({ total: 2, page: 2, perPage: 1, messages: [{ content: 'Noted', role: 'assistant' }] });
    const shown = (await call(app(), `/chats/${chat.id}`, { key: a.key })).body.chat;
    expect(shown.messageCount).toBe(2);
    expect(shown.lastMessageAt).toBe(second.body.message.timestamp);

    const empty = await call(app(), `/chats/${chat.id}/messages`, { key: a.key, body: { content: '' } });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(empty.body)).toContain('content');
  });
});

describe('who sees what', () => {
  it('another user gets 404 for everything of a chat; an account key reads, lists and deletes across users', async () => {
    const acct = await newAccount(app());
    const [a, b] = [await person(acct), await person(acct)];
    const chat = await open(a, { title: 'Private' });
    for (const [method, path, body] of [
      ['GET', `/chats/${chat.id}`],
      ['DELETE', `/chats/${chat.id}`],
      ['GET', `/chats/${chat.id}/messages`],
      ['POST', `/chats/${chat.id}/messages`, { content: 'hi' }],
    ] as const) {
      expect((await call(app(), path, { method, key: b.key, body })).status, `${method} ${path}`).toBe(404);
    }
    expect((await call(app(), '/chats', { key: b.key })).body.total).toBe(0);
    // Another account sees nothing either.
    const other = await newAccount(app(), 'Other');
    expect((await call(app(), `/chats/${chat.id}`, { key: other.key })).status).toBe(404);

    await open(b, { title: 'Bees' });
    const all = await call(app(), '/chats', { key: acct.key });
    expect(all.body.total).toBe(2);
    const onlyA = await call(app(), `/chats?userEmail=${encodeURIComponent(a.email)}`, { key: acct.key });
    expect(onlyA.body.chats.map((c: { id: string }) => c.id)).toEqual([chat.id]);
    expect((await call(app(), `/chats/${chat.id}`, { key: acct.key })).body.chat.title).toBe('Private');
    expect((await call(app(), `/chats/${chat.id}`, { method: 'DELETE', key: acct.key })).status).toBe(200);
    expect((await call(app(), '/chats', { key: acct.key })).body.total).toBe(1);
  });
});

describe('the list', () => {
  it('is most recent first and filters by status, assistant, title and platforms, with paging and total', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const second = await call(app(), `/users/${a.id}/assistants`, { key: a.key, body: { name: `Bo ${named++}` } });
    const boId = second.body.assistant.id as string;
    const c1 = await open(a, { title: 'Paris trip' });
    const c2 = await open(a, { title: 'Groceries', assistantId: boId });
    const c3 = await open(a, { title: 'Paris 100% sure' });
    // A message makes a chat the most recent.
    await call(app(), `/chats/${c1.id}/messages`, { key: a.key, body: { content: 'bump' } });

    const ids = async (q: string) => (await call(app(), `/chats${q}`, { key: a.key })).body;
    expect((await ids('')).chats.map((c: { id: string }) => c.id)).toEqual([c1.id, c3.id, c2.id]);
    expect((await ids(`?assistantId=${boId}`)).chats.map((c: { id: string }) => c.id)).toEqual([c2.id]);
    expect((await ids('?q=paris')).chats.map((c: { id: string }) => c.id)).toEqual([c1.id, c3.id]);
    expect((await ids('?q=100%25')).chats.map((c: { id: string }) => c.id)).toEqual([c3.id]);
    expect((await ids('?platform=chat,email')).total).toBe(3);
    expect((await ids('?platform=email')).total).toBe(0);
    expect((await ids('?status=archived')).total).toBe(0);
    expect(await ids('?perPage=2&page=2')).toMatchObject({ total: 3, page: 2, perPage: 2, chats: [{ id: c2.id }] });
    const bad = await call(app(), '/chats?platform=chat,fax', { key: a.key });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('platform');
  });
});
