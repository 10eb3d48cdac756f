import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryEmbeddingQueue, memoryEmbeddings } from '@/db/schema';
import { SearchMemoriesResponse } from '@/server/memories/contracts';
import { embedQueuedMemories } from '@/server/memories/embed-queue';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';
import { useTestServer } from '../helpers/server';
import { seedMemories } from './seed';

/*
 * GET /memories/search (spec 6, Recall): ranked, best first, each memory with its score; the
 * user's own and their active teams' shared memories, never another user's; the same answer's
 * shape with embeddings configured (hybrid) and without; GET /memories?search= stays a
 * substring filter.
 */

const app = useTestServer();
const db = () => app().database.db;
let llm: ScriptedModel;
const EMBEDDINGS = ['STEWARD_EMBEDDINGS_MODEL', 'STEWARD_EMBEDDINGS_BASE_URL', 'STEWARD_MODEL_BASE_URL'];
const saved = Object.fromEntries(EMBEDDINGS.map((n) => [n, process.env[n]]));

beforeAll(async () => {
  llm = await startScriptedModel();
  for (const n of EMBEDDINGS) delete process.env[n];
});
afterAll(async () => {
  await llm.close();
  for (const [n, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[n];
    else process.env[n] = v;
  }
});

async function person(acct: Awaited<ReturnType<typeof newAccount>>, teamId?: string) {
  const u = await newUser(app(), acct, { teamId });
  return { ...u, key: await userKey(app(), acct, u.id) };
}

async function remember(key: string, body: Record<string, unknown>) {
  const res = await call(app(), '/memories', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.memory.id as string;
}

const search = async (key: string, q: string, limit?: number) => {
  const res = await call(app(), `/memories/search?q=${encodeURIComponent(q)}${limit ? `&limit=${limit}` : ''}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return SearchMemoriesResponse.parse(res.body).memories;
};

describe('GET /memories/search', () => {
  it('finds the oldest of thousands first when it is the relevant one, in other word forms, scores descending', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const target = await remember(a.key, { content: 'Grandma Rosa’s lasagna recipe uses ricotta, fresh basil and three layers of pasta' });
    await seedMemories(db(), { accountId: acct.accountId, userId: a.id }, 3_000);
    const found = await search(a.key, 'how do I make the lasagnas with basil');
    expect(found[0].id).toBe(target);
    expect(found[0]).toMatchObject({ content: expect.stringContaining('lasagna'), user: a.id });
    const scores = found.map((m) => m.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    // A misspelt name still finds it (trigram similarity).
    expect((await search(a.key, 'Grandma Rossa')).map((m) => m.id)).toContain(target);
    // The limit caps the answer.
    expect(await search(a.key, 'dinner with Alex', 5)).toHaveLength(5);
  });

  it('never answers another user’s memories; a teammate sees team memories shared with the team', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const b = await person(acct, a.teamId);
    const stranger = await person(acct);
    const own = await remember(a.key, { content: 'The garage door code is 4417' });
    const team = await remember(a.key, { content: 'The office garage opens at seven', scope: 'team' });
    const authorOnly = await remember(a.key, { content: 'My garage parking spot is B12', scope: 'team', visibility: 'author_only' });
    expect((await search(a.key, 'garage')).map((m) => m.id).sort()).toEqual([own, team, authorOnly].sort());
    expect((await search(b.key, 'garage')).map((m) => m.id)).toEqual([team]);
    expect(await search(stranger.key, 'garage')).toEqual([]);
  });

  it('finds structured memories by their data, and expired ones marked isExpired; 400 without q', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const structured = await remember(a.key, { content: 'Frequent flyer', kind: 'structured', resourceType: 'loyalty', data: { airline: 'Lufthansa', number: 'LH-99812' } });
    const day = 86_400_000;
    const expired = await remember(a.key, {
      content: 'Conference in Lisbon',
      tags: ['date-memory'],
      startDate: new Date(Date.now() - 3 * day).toISOString(),
      endDate: new Date(Date.now() - day).toISOString(),
    });
    expect((await search(a.key, 'Lufthansa number'))[0]).toMatchObject({ id: structured, kind: 'structured', data: { airline: 'Lufthansa' } });
    expect((await search(a.key, 'Lisbon'))[0]).toMatchObject({ id: expired, isExpired: true });
    const bad = await call(app(), '/memories/search', { key: a.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('q');
  });

  it('GET /memories?search= keeps the substring filter, newest first', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const first = await remember(a.key, { content: 'Likes oat milk' });
    const second = await remember(a.key, { content: 'Buys oatmeal on Fridays' });
    const res = await call(app(), '/memories?search=oat', { key: a.key });
    expect(res.body.memories.map((m: { id: string }) => m.id)).toEqual([second, first]);
    // "oat" as a word: a ranked search matches the word, not the substring of "oatmeal".
    expect((await search(a.key, 'oat'))[0].id).toBe(first);
  });

  it('with embeddings configured: vectors are computed in the background, the answer keeps its shape, and an endpoint outage falls back to text', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const other = await person(acct);
    const target = await remember(a.key, { content: 'The boat is moored at pier 7 in the marina' });
    await remember(a.key, { content: 'Renewed the car insurance' });
    const theirs = await remember(other.key, { content: 'The boat of the other user is at the marina' });
    const textOnly = await search(a.key, 'marina boat');

    Object.assign(process.env, { STEWARD_EMBEDDINGS_MODEL: 'stand-in-embed', STEWARD_MODEL_BASE_URL: llm.baseUrl });
    try {
      // Nothing is embedded on the request path: the write only queued it.
      expect(llm.embeddingRequests).toHaveLength(0);
      expect(await db().select().from(memoryEmbeddingQueue).where(eq(memoryEmbeddingQueue.memoryId, target))).toHaveLength(1);
      for (let left = true; left; ) left = (await embedQueuedMemories(db())).left;
      const [stored] = await db().select().from(memoryEmbeddings).where(eq(memoryEmbeddings.memoryId, target));
      expect(stored).toMatchObject({ model: 'stand-in-embed', userId: a.id });
      expect(stored.vector).toHaveLength(256);
      expect(stored.buckets).toHaveLength(16);
      expect(await db().select().from(memoryEmbeddingQueue).where(eq(memoryEmbeddingQueue.memoryId, target))).toHaveLength(0);
      expect(llm.embeddingRequests.every((r) => r.model === 'stand-in-embed')).toBe(true);

      const hybrid = await search(a.key, 'marina boat');
      expect(hybrid[0].id).toBe(target);
      expect(hybrid.map((m) => m.id)).not.toContain(theirs);
      expect(Object.keys(hybrid[0]).sort()).toEqual(Object.keys(textOnly[0]).sort());
      // The query itself was embedded (that is the only model call on the request path).
      expect(llm.embeddingRequests.at(-1)!.input).toEqual(['marina boat']);

      // A changed memory is queued again and its vector replaced.
      expect((await call(app(), `/memories/${target}`, { key: a.key, method: 'PUT', body: { content: 'The boat is moored at pier 9 in the marina' } })).status).toBe(200);
      expect(await db().select().from(memoryEmbeddingQueue).where(eq(memoryEmbeddingQueue.memoryId, target))).toHaveLength(1);

      // The endpoint down: the search still answers (text alone), and the queue keeps its work for later.
      llm.failEmbeddings(10);
      const during = await search(a.key, 'pier 9 boat');
      expect(during[0].id).toBe(target);
      const failed = await embedQueuedMemories(db());
      expect(failed).toMatchObject({ embedded: 0, failed: 1 });
      const [waiting] = await db().select().from(memoryEmbeddingQueue).where(eq(memoryEmbeddingQueue.memoryId, target));
      expect(waiting.attempts).toBe(1);
      expect(waiting.notBefore!.getTime()).toBeGreaterThan(Date.now());
    } finally {
      for (const n of EMBEDDINGS) delete process.env[n];
    }
  });
});
