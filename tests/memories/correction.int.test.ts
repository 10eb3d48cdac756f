import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { memories, taskActivities, tasks } from '@/db/schema';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from '../agent/run-harness';
import { newChat, openStream } from '../chats/turn-harness';

/*
 * Correction instead of accumulation (spec 6, Recall): the agent sees each memory's id, and
 * update_memory replaces a memory's words, forget_memory deletes it, and a save_memory that
 * restates a memory the run was shown updates that one instead of adding a duplicate. Through
 * the memories service as the owner: another user's memory is not found, and a run that read
 * outside content may not forget.
 */

const h = useRunHarness();
const { app, db } = h;

async function remember(key: string, content: string) {
  const res = await call(app(), '/memories', { key, body: { content } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.memory.id as string;
}

const contentsOf = async (key: string) => (await call(app(), '/memories?perPage=100', { key })).body.memories.map((m: { content: string }) => m.content).sort();
const toolOutputs = async (taskId: string, tool: string) =>
  (await db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.toolName, tool)))).map((a) => a.toolOutput as any);

/** A task run whose model makes these tool calls, then completes. */
async function runWith(p: Awaited<ReturnType<typeof h.person>>, title: string, calls: { name: string; arguments: unknown }[], prepare?: (taskId: string) => Promise<void>) {
  h.state.llm.enqueue({ toolCalls: calls }, { text: 'Done.', toolCalls: [{ name: 'complete_task', arguments: { summary: 'ok' } }] });
  const taskId = await h.createTask(p, { title });
  await prepare?.(taskId);
  const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: {} });
  expect(processed.status).toBe(200);
  await h.ended(processed.body.process.executionId);
  return taskId;
}

describe('correcting memories', () => {
  it('a save that restates a memory the run saw updates it; a new fact is saved beside it', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const seat = await remember(p.key, 'Prefers a window seat on flights');
    const taskId = await runWith(p, 'Book my flight to Oslo', [
      { name: 'save_memory', arguments: { content: 'The user prefers window seats on flights' } },
      { name: 'save_memory', arguments: { content: 'Flies to Oslo every March for the board meeting' } },
    ]);
    // The model was shown the memory with its id.
    expect(JSON.stringify(h.state.llm.requests[0].messages)).toContain(`[${seat}] Prefers a window seat on flights`);
    const [restated, fresh] = await toolOutputs(taskId, 'save_memory');
    expect(restated).toMatchObject({ saved: true, updated: true, memoryId: seat });
    expect(fresh).toMatchObject({ saved: true });
    expect(fresh.memoryId).not.toBe(seat);
    expect(await contentsOf(p.key)).toEqual(['Flies to Oslo every March for the board meeting', 'The user prefers window seats on flights']);
  });

  it('update_memory replaces a memory’s words and forget_memory deletes it; another user’s memory is not found to either', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const other = await h.person(acct);
    const dentist = await remember(p.key, 'My dentist is Dr. Lee on Main Street');
    const gym = await remember(p.key, 'Goes to the gym on Mondays');
    const theirs = await remember(other.key, 'The other user’s dentist is Dr. Smith');
    const taskId = await runWith(p, 'Update my dentist and gym notes', [
      { name: 'update_memory', arguments: { memoryId: dentist, content: 'My dentist is now Dr. Park on Elm Street' } },
      { name: 'forget_memory', arguments: { memoryId: gym } },
      { name: 'update_memory', arguments: { memoryId: theirs, content: 'overwritten' } },
      { name: 'forget_memory', arguments: { memoryId: theirs } },
    ]);
    expect(await contentsOf(p.key)).toEqual(['My dentist is now Dr. Park on Elm Street']);
    expect((await call(app(), `/memories/${gym}`, { key: p.key })).status).toBe(404);
    const [updated, refusedUpdate] = await toolOutputs(taskId, 'update_memory');
    expect(updated).toMatchObject({ updated: true, memoryId: dentist });
    expect(refusedUpdate.error).toMatch(/not found/i);
    const [forgot, refusedForget] = await toolOutputs(taskId, 'forget_memory');
    expect(forgot).toMatchObject({ forgotten: true, memoryId: gym });
    expect(refusedForget.error).toMatch(/not found/i);
    expect(await contentsOf(other.key)).toEqual(['The other user’s dentist is Dr. Smith']);
  });

  it('a run that read outside content may correct (the memory is then marked as outside content) but not forget', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const code = await remember(p.key, 'The gate code is 1234');
    const taint = [{ kind: 'email' as const, ref: 'mallory@evil.test' }];
    const taskId = await runWith(
      p,
      'Handle the building email',
      [
        { name: 'forget_memory', arguments: { memoryId: code } },
        { name: 'update_memory', arguments: { memoryId: code, content: 'The gate code is 9999' } },
      ],
      async (id) => void (await db().update(tasks).set({ tainted: true, taintSources: taint }).where(eq(tasks.id, id))),
    );
    const [refused] = await toolOutputs(taskId, 'forget_memory');
    expect(refused).toMatchObject({ forgotten: false });
    const [row] = await db().select().from(memories).where(eq(memories.id, code));
    expect(row.content).toBe('The gate code is 9999');
    expect(row.metadata).toMatchObject({ untrustedSources: taint });
  });

  it('a chat turn corrects and restates the same way', async () => {
    const acct = await newAccount(app());
    const p = await h.person(acct);
    const coffee = await remember(p.key, 'Drinks coffee with oat milk');
    const city = await remember(p.key, 'Lives in Lyon');
    h.state.llm.enqueue(
      {
        toolCalls: [
          { name: 'save_memory', arguments: { content: 'Drinks oat milk coffee' } },
          { name: 'update_memory', arguments: { memoryId: city, content: 'Lives in Marseille since May' } },
        ],
      },
      { text: 'Noted.' },
    );
    const chatId = await newChat(app(), p);
    await openStream(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { content: 'I moved to Marseille. And remember my coffee: oat milk.' } } }).done;
    const tools = h.state.llm.requests[0].tools!.map((t: any) => t.function.name);
    expect(tools).toEqual(expect.arrayContaining(['save_memory', 'search_memories', 'update_memory', 'forget_memory']));
    expect(await contentsOf(p.key)).toEqual(['Drinks oat milk coffee', 'Lives in Marseille since May']);
    const ids = (await call(app(), '/memories', { key: p.key })).body.memories.map((m: { id: string }) => m.id).sort();
    expect(ids).toEqual([coffee, city].sort());
  });
});
