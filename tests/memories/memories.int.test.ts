import { describe, expect, it } from 'vitest';
import { ListMemoriesResponse, MemoryEnvelope } from '@/server/memories/contracts';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

async function teamOfTwo() {
  const acct = await newAccount(app());
  const a = await newUser(app(), acct);
  const b = await newUser(app(), acct, { teamId: a.teamId });
  const outsider = await newUser(app(), acct);
  return {
    acct,
    a: { ...a, key: await userKey(app(), acct, a.id) },
    b: { ...b, key: await userKey(app(), acct, b.id) },
    outsider: { ...outsider, key: await userKey(app(), acct, outsider.id) },
  };
}

describe('memories', () => {
  it('creates with default tag general, trims and lower-cases tags, adds profile for profile:bio', async () => {
    const { a } = await teamOfTwo();
    const plain = await call(app(), '/memories', { key: a.key, body: { content: 'Likes tea' } });
    expect(plain.status).toBe(201);
    const { memory } = MemoryEnvelope.parse(plain.body);
    expect(memory).toMatchObject({ tags: ['general'], scope: 'user', team: null, user: a.id, authoredBy: a.id, isActive: true, isExpired: false, source: 'user' });
    const tagged = await call(app(), '/memories', {
      key: a.key,
      body: { content: 'Bio', tags: ['  profile:bio ', 'contact:Ada@Example.COM', 'repo:acme/site', 'company:c1'] },
    });
    expect(tagged.body.memory.tags).toEqual(['profile:bio', 'contact:ada@example.com', 'repo:acme/site', 'company:c1', 'profile']);
  });

  it('refuses a tag outside the vocabulary with the accepted list, and date-memory without startDate', async () => {
    const { a } = await teamOfTwo();
    const bad = await call(app(), '/memories', { key: a.key, body: { content: 'x', tags: ['general', 'urgent'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('"urgent"');
    expect(bad.body.error).toContain('accepted tags: general, profile, date-memory, assistant-style');
    expect(bad.body.error).toContain('contact:<email>');
    const noDate = await call(app(), '/memories', { key: a.key, body: { content: 'Dentist', tags: ['date-memory'] } });
    expect(noDate.status).toBe(400);
    expect(noDate.body.error).toContain('startDate');
    const missing = await call(app(), '/memories', { key: a.key, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('content');
    const list = await call(app(), '/memories', { key: a.key });
    expect(list.body.total).toBe(0);
  });

  it('isActive and isExpired follow the dates', async () => {
    const { a } = await teamOfTwo();
    const day = 86_400_000;
    const future = await call(app(), '/memories', { key: a.key, body: { content: 'Trip', tags: ['date-memory'], startDate: new Date(Date.now() + day).toISOString() } });
    expect(future.body.memory).toMatchObject({ isActive: false, isExpired: false });
    const past = await call(app(), '/memories', {
      key: a.key,
      body: { content: 'Old', tags: ['date-memory'], startDate: new Date(Date.now() - 2 * day).toISOString(), endDate: new Date(Date.now() - day).toISOString() },
    });
    expect(past.body.memory).toMatchObject({ isActive: false, isExpired: true });
  });

  it('team scope: visible to active team members, not to others; only the author edits or deletes', async () => {
    const { acct, a, b, outsider } = await teamOfTwo();
    const shared = await call(app(), '/memories', { key: a.key, body: { content: 'Team standup at 9', scope: 'team' } });
    expect(shared.status).toBe(201);
    expect(shared.body.memory).toMatchObject({ scope: 'team', team: a.teamId });
    const own = await call(app(), '/memories', { key: a.key, body: { content: 'Private thought' } });
    const id = shared.body.memory.id;

    expect((await call(app(), `/memories/${id}`, { key: b.key })).status).toBe(200);
    expect((await call(app(), `/memories/${own.body.memory.id}`, { key: b.key })).status).toBe(404);
    expect((await call(app(), `/memories/${id}`, { key: outsider.key })).status).toBe(404);
    const bList = await call(app(), '/memories', { key: b.key });
    expect(bList.body.memories.map((m: { id: string }) => m.id)).toEqual([id]);

    expect((await call(app(), `/memories/${id}`, { key: b.key, method: 'PUT', body: { content: 'changed' } })).status).toBe(403);
    expect((await call(app(), `/memories/${id}`, { key: b.key, method: 'DELETE' })).status).toBe(403);
    expect((await call(app(), `/memories/${id}`, { key: outsider.key, method: 'DELETE' })).status).toBe(404);
    const edited = await call(app(), `/memories/${id}`, { key: a.key, method: 'PUT', body: { content: 'Standup at 10', tags: ['general', 'event:e1'] } });
    expect(edited.body.memory).toMatchObject({ content: 'Standup at 10', tags: ['general', 'event:e1'], scope: 'team' });

    const notMember = await call(app(), '/memories', { key: outsider.key, body: { content: 'x', scope: 'team', team: a.teamId } });
    expect(notMember.status).toBe(403);
    const del = await call(app(), `/memories/${id}`, { key: a.key, method: 'DELETE' });
    expect(del.body).toEqual({ ok: true, memory: { id, deleted: true, message: expect.any(String) } });
    expect((await call(app(), `/memories/${id}`, { key: b.key })).status).toBe(404);
    // An account key without X-User-Email has no user to remember for.
    expect((await call(app(), '/memories', { key: acct.key })).status).toBe(401);
  });

  it('filters: tags (any), contactEmail, companyId, search, scope, type; newest first with pagination', async () => {
    const { a } = await teamOfTwo();
    const make = (body: object) => call(app(), '/memories', { key: a.key, body });
    await make({ content: 'Ada prefers mornings', tags: ['contact:ada@example.com'] });
    await make({ content: 'Acme renewal in May', tags: ['company:acme'] });
    await make({ content: 'Write in short sentences', tags: ['assistant-style'], scope: 'team' });
    await make({ content: 'Structured fact', kind: 'structured', data: { k: 1 }, resourceType: 'fact' });
    const list = async (qs: string) => ListMemoriesResponse.parse((await call(app(), `/memories?${qs}`, { key: a.key })).body).memories.map((m) => m.content);
    expect(await list('tags=company:acme,assistant-style')).toEqual(['Write in short sentences', 'Acme renewal in May']);
    expect(await list('contactEmail=ADA@example.com')).toEqual(['Ada prefers mornings']);
    expect(await list('companyId=acme')).toEqual(['Acme renewal in May']);
    expect(await list('search=RENEWAL')).toEqual(['Acme renewal in May']);
    expect(await list('scope=team')).toEqual(['Write in short sentences']);
    expect(await list('type=structured')).toEqual(['Structured fact']);
    expect(await list('type=fact')).toEqual(['Structured fact']);
    const page = await call(app(), '/memories?perPage=2&page=2', { key: a.key });
    expect(page.body).toMatchObject({ page: 2, perPage: 2, total: 4 });
    expect(page.body.memories.map((m: { content: string }) => m.content)).toEqual(['Acme renewal in May', 'Ada prefers mornings']);
  });

  it("another account's memory is 404", async () => {
    const { a } = await teamOfTwo();
    const m = await call(app(), '/memories', { key: a.key, body: { content: 'mine' } });
    const other = await teamOfTwo();
    expect((await call(app(), `/memories/${m.body.memory.id}`, { key: other.a.key })).status).toBe(404);
    expect((await call(app(), `/memories/${m.body.memory.id}`, { key: other.acct.key, as: other.a.email })).status).toBe(404);
  });
});
