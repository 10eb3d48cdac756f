import { z } from 'zod';
import type { Db } from '@/db/client';
import type { TaintSource, TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { restatedMemory } from '@/server/memories/restate';
import { searchMemories as rankedSearch } from '@/server/memories/search';
import { createMemory, deleteMemory, getMemory, updateMemory as changeMemory } from '@/server/memories/service';
import { memoryTaint, recallForRun, UNTRUSTED_MEMORY_KEY } from '../memories';
import { loadTaskSubject } from '../recall-subject';
import { defineTool } from './registry';

/*
 * The memory tools (spec 4 save_memory and search_memories; spec 6 update_memory and
 * forget_memory), through the memories service as the task's owner: the same checks as the
 * owner's own requests, so another user's memory is "not found" and a teammate's team memory is
 * theirs to change, not the agent's. The effects are shared with the chat tools
 * (server/chats/tools/resource-tools.ts); what differs is how each host knows what its run saw
 * and whether it read outside content.
 *
 * Correction instead of accumulation: a save that restates a memory the run was shown updates
 * that memory (restate.ts); update_memory replaces a memory's words; forget_memory deletes it.
 * A run that read outside content (tainted) marks what it writes as such (runtime/memories.ts
 * shows it as data to later runs), and may not forget: a deletion cannot carry that mark, so the
 * model is told to ask the user instead.
 */

const asDb = (db: unknown) => db as Db;
const RESULTS = 10;

export const SaveMemoryInput = z.object({ content: z.string().trim().min(1).max(10_000), tags: z.array(z.string().max(300)).max(20).optional() });
export const SearchMemoriesInput = z.object({ query: z.string().trim().min(1).max(500) });
export const UpdateMemoryInput = z.object({ memoryId: z.string().trim().min(1).max(100), content: z.string().trim().min(1).max(10_000) });
export const ForgetMemoryInput = z.object({ memoryId: z.string().trim().min(1).max(100) });

/** How a host tells a tool what its run saw and read: the ids of the memories shown, and the outside sources read. */
export type MemoryRun = { seen: () => Promise<string[]>; taint: () => Promise<readonly TaintSource[]> };

const withTaint = (metadata: Record<string, unknown> | undefined, taint: readonly TaintSource[]) => {
  if (!taint.length) return metadata;
  const known = memoryTaint(metadata);
  const merged = [...known, ...taint.filter((t) => !known.some((k) => k.kind === t.kind && k.ref === t.ref))];
  return { ...metadata, [UNTRUSTED_MEMORY_KEY]: merged };
};

export async function saveMemoryAs(db: unknown, actor: UserActor, input: z.infer<typeof SaveMemoryInput>, run: MemoryRun) {
  const taint = await run.taint();
  const restated = await restatedMemory(asDb(db), actor, input.content, await run.seen());
  if (restated) {
    const { memory: before } = await getMemory(asDb(db), actor, restated);
    const { memory } = await changeMemory(asDb(db), actor, restated, {
      content: input.content,
      tags: input.tags ? [...new Set([...before.tags, ...input.tags])] : undefined,
      metadata: taint.length ? withTaint(before.metadata, taint) : undefined,
    });
    return { output: { saved: true, updated: true, memoryId: memory.id, tags: memory.tags, note: 'This restated a memory you were shown; that memory was updated instead of saving another.' } };
  }
  const { memory } = await createMemory(asDb(db), actor, { content: input.content, tags: input.tags, metadata: withTaint(undefined, taint) });
  return { output: { saved: true, memoryId: memory.id, tags: memory.tags } };
}

export async function searchMemoriesAs(db: unknown, actor: UserActor, input: z.infer<typeof SearchMemoriesInput>) {
  const { memories } = await rankedSearch(asDb(db), actor, { q: input.query, limit: RESULTS });
  return {
    output: {
      memories: memories.map((m) => ({
        id: m.id,
        content: m.content,
        ...(m.data ? { data: m.data } : {}),
        tags: m.tags,
        scope: m.scope,
        pinned: m.pinned,
        ...(m.startDate || m.endDate ? { startDate: m.startDate, endDate: m.endDate, isExpired: m.isExpired } : {}),
        createdAt: m.createdAt,
      })),
    },
  };
}

export async function updateMemoryAs(db: unknown, actor: UserActor, input: z.infer<typeof UpdateMemoryInput>, run: MemoryRun) {
  const taint = await run.taint();
  const { memory: before } = await getMemory(asDb(db), actor, input.memoryId);
  const { memory } = await changeMemory(asDb(db), actor, input.memoryId, { content: input.content, metadata: taint.length ? withTaint(before.metadata, taint) : undefined });
  return { output: { updated: true, memoryId: memory.id, content: memory.content } };
}

export async function forgetMemoryAs(db: unknown, actor: UserActor, input: z.infer<typeof ForgetMemoryInput>, run: MemoryRun) {
  if ((await run.taint()).length) {
    return {
      output: {
        forgotten: false,
        reason: 'This conversation read content from outside the user, so it may not delete their memories on its own.',
        next: 'Ask the user whether to forget it, naming the memory; or correct it with update_memory.',
      },
    };
  }
  const { memory } = await deleteMemory(asDb(db), actor, input.memoryId);
  return { output: { forgotten: true, memoryId: memory.id } };
}

export const SAVE_MEMORY_DESCRIPTION =
  'Remember something about the user for later (a preference, a fact). If it restates a memory you were shown, that memory is updated instead of saving another. tags are optional labels.';
export const SEARCH_MEMORIES_DESCRIPTION = 'Search the user’s memories (their own and their teams’), best matches first.';
export const UPDATE_MEMORY_DESCRIPTION =
  'Correct a memory that is wrong or out of date: give its id (shown in brackets before each memory) and its new content, which replaces the old.';
export const FORGET_MEMORY_DESCRIPTION = 'Delete a memory that is wrong or no longer true, by its id (shown in brackets before each memory).';

/** How a host's run knows what it saw and read, from its subject (a task, a chat). */
export type MemoryRunOf<Subject> = (db: unknown, actor: UserActor, subject: Subject, now: Date) => MemoryRun;

/** search_memories looks at no subject: one tool for tasks and chats. */
export const searchMemories = defineTool<typeof SearchMemoriesInput, unknown>({
  name: 'search_memories',
  description: SEARCH_MEMORIES_DESCRIPTION,
  input: SearchMemoriesInput,
  handler: (db, actor, _subject, input) => searchMemoriesAs(db, actor, input),
});

/** The memory tools of a host, in order: save, search, update, forget; `runOf` says what its run saw and read. */
export function memoryToolsFor<Subject>(runOf: MemoryRunOf<Subject>) {
  const saveMemory = defineTool<typeof SaveMemoryInput, Subject>({
    name: 'save_memory',
    description: SAVE_MEMORY_DESCRIPTION,
    input: SaveMemoryInput,
    handler: (db, actor, subject, input, run) => saveMemoryAs(db, actor, input, runOf(db, actor, subject, run.now)),
  });
  const updateMemory = defineTool<typeof UpdateMemoryInput, Subject>({
    name: 'update_memory',
    description: UPDATE_MEMORY_DESCRIPTION,
    input: UpdateMemoryInput,
    handler: (db, actor, subject, input, run) => updateMemoryAs(db, actor, input, runOf(db, actor, subject, run.now)),
  });
  const forgetMemory = defineTool<typeof ForgetMemoryInput, Subject>({
    name: 'forget_memory',
    description: FORGET_MEMORY_DESCRIPTION,
    input: ForgetMemoryInput,
    handler: (db, actor, subject, input, run) => forgetMemoryAs(db, actor, input, runOf(db, actor, subject, run.now)),
  });
  return { saveMemory, searchMemories, updateMemory, forgetMemory };
}

/** In a task run: what it saw is what recall shows for the task now (memories.ts, recall-subject.ts); its taint is the task's. */
const taskRun: MemoryRunOf<TaskRow> = (db, actor, task, now) => ({
  seen: async () => (await recallForRun(asDb(db), actor, await loadTaskSubject(asDb(db), task), now)).shownIds,
  taint: async () => (task.tainted ? task.taintSources : []),
});

export const { saveMemory, updateMemory, forgetMemory } = memoryToolsFor(taskRun);

/** The memory tools of a task run. */
export const memoryTools = [saveMemory, searchMemories, updateMemory, forgetMemory];
