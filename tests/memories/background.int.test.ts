import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fileTexts, memoryEmbeddingQueue, memoryEmbeddings } from '@/db/schema';
import { localStorage, useFileStorage } from '@/server/files/storage';
import { storeIncomingFile } from '@/server/files/store';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from '../agent/run-harness';

/*
 * The background half of recall, on the engine (the production Inngest functions through the
 * built-in executor): memory-embeddings drains the queue every write fills, with vectors from the
 * configured /embeddings endpoint (the scripted model's stand-in), and does nothing without a
 * model; memory-file-texts extracts the text of a user's new files for recall.
 */

const h = useRunHarness();
const { app, db, until } = h;

beforeAll(() => useFileStorage(localStorage(mkdtempSync(path.join(os.tmpdir(), 'steward-background-')))));
afterEach(() => {
  delete process.env.STEWARD_EMBEDDINGS_MODEL;
});

async function ask(name: 'memoriesEmbedDue' | 'fileTextsDue') {
  const [{ inngest }, { events }] = await Promise.all([import('@/inngest/client'), import('@/inngest/events')]);
  await inngest.send(events[name].create({}));
}

describe('recall’s background work', () => {
  it('memory-embeddings computes the vectors of written memories once a model is configured, and waits without one', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const created = await call(app(), '/memories', { key: p.key, body: { content: 'The spare key is under the blue flowerpot' } });
    expect(created.status).toBe(201);
    const id = created.body.memory.id as string;

    // No model: the function runs and leaves the queue as it is.
    await ask('memoriesEmbedDue');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await db().select().from(memoryEmbeddings).where(eq(memoryEmbeddings.memoryId, id))).toHaveLength(0);
    expect(await db().select().from(memoryEmbeddingQueue).where(eq(memoryEmbeddingQueue.memoryId, id))).toHaveLength(1);

    process.env.STEWARD_EMBEDDINGS_MODEL = 'stand-in-embed';
    await ask('memoriesEmbedDue');
    const [row] = await until(async () => {
      const rows = await db().select().from(memoryEmbeddings).where(eq(memoryEmbeddings.memoryId, id));
      return rows.length ? rows : null;
    }, 30_000);
    expect(row).toMatchObject({ model: 'stand-in-embed', userId: p.id });
    expect(h.state.llm.embeddingRequests.some((r) => r.input.some((t) => t.includes('blue flowerpot')))).toBe(true);
    expect(await db().select().from(memoryEmbeddingQueue).where(eq(memoryEmbeddingQueue.memoryId, id))).toHaveLength(0);
  });

  it('memory-file-texts extracts a new file’s text once', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const stored = await storeIncomingFile(db(), { accountId: acct.accountId, userId: p.id }, { name: 'lease.txt', mimeType: 'text/plain', bytes: Buffer.from('The lease ends on 31 August; two months notice.') });
    if (!('file' in stored)) throw new Error('not stored');
    await ask('fileTextsDue');
    const [row] = await until(async () => {
      const rows = await db().select().from(fileTexts).where(eq(fileTexts.fileId, stored.file.id));
      return rows.length ? rows : null;
    }, 30_000);
    expect(row).toMatchObject({ userId: p.id, text: 'The lease ends on 31 August; two months notice.', note: null });
  });
});
