import { z } from 'zod';
import type { Db } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import { listContacts } from '@/server/contacts/service';
import { createMemory, listMemories } from '@/server/memories/service';
import type { TaintSource } from '@/db/schema';
import { UNTRUSTED_MEMORY_KEY } from '../memories';
import { defineTool } from './registry';

/*
 * Memories and contacts through their areas' services, as the task's owner: the same checks as
 * the owner's own requests, so another user's rows stay out of reach (404 / absent from lists).
 * The services take a Db; the step's transaction is one at run time.
 */

const asDb = (db: unknown) => db as Db;
const RESULTS = 10;

/** The effects themselves, shared with the chat tool set (server/chats/tools): only the owner's actor and the input. */
export const SaveMemoryInput = z.object({ content: z.string().trim().min(1).max(10_000), tags: z.array(z.string().max(300)).max(20).optional() });
export const SearchMemoriesInput = z.object({ query: z.string().trim().min(1).max(500) });
export const SearchContactsInput = z.object({ query: z.string().trim().min(1).max(300) });

/**
 * `taint`: the sources the saving run read from outside the user. Such a memory keeps them, and
 * every later run reads it as untrusted data (runtime/memories.ts), so an attacker's words never
 * become the user's remembered wishes.
 */
export async function saveMemoryAs(db: unknown, actor: UserActor, input: z.infer<typeof SaveMemoryInput>, taint: readonly TaintSource[] = []) {
  const metadata = taint.length ? { [UNTRUSTED_MEMORY_KEY]: taint } : undefined;
  const { memory } = await createMemory(asDb(db), actor, { content: input.content, tags: input.tags, metadata });
  return { output: { saved: true, memoryId: memory.id, tags: memory.tags } };
}

export async function searchMemoriesAs(db: unknown, actor: UserActor, input: z.infer<typeof SearchMemoriesInput>) {
  const { memories, total } = await listMemories(asDb(db), actor, { search: input.query, page: 1, perPage: RESULTS });
  return { output: { total, memories: memories.map((m) => ({ id: m.id, content: m.content, tags: m.tags, scope: m.scope, createdAt: m.createdAt })) } };
}

export async function searchContactsAs(db: unknown, actor: UserActor, input: z.infer<typeof SearchContactsInput>) {
  const { contacts, total } = await listContacts(asDb(db), actor, { q: input.query, page: 1, perPage: RESULTS });
  return {
    output: {
      total,
      contacts: contacts.map((c) => ({ id: c.id, name: c.name, preferredName: c.preferredName, email: c.email, title: c.title, company: c.company?.name ?? null })),
    },
  };
}

export const SAVE_MEMORY_DESCRIPTION = 'Remember something about the user for later tasks (a preference, a fact). tags are optional labels.';
export const SEARCH_MEMORIES_DESCRIPTION = 'Search the user’s memories (their own and their teams’) for text.';
export const SEARCH_CONTACTS_DESCRIPTION = 'Search the user’s contacts by name, email, title or company.';

export const saveMemory = defineTool({
  name: 'save_memory',
  description: SAVE_MEMORY_DESCRIPTION,
  input: SaveMemoryInput,
  handler: (db, actor, task, input) => saveMemoryAs(db, actor, input, task.tainted ? task.taintSources : []),
});

export const searchMemories = defineTool({
  name: 'search_memories',
  description: SEARCH_MEMORIES_DESCRIPTION,
  input: SearchMemoriesInput,
  handler: (db, actor, _task, input) => searchMemoriesAs(db, actor, input),
});

export const searchContacts = defineTool({
  name: 'search_contacts',
  description: SEARCH_CONTACTS_DESCRIPTION,
  input: SearchContactsInput,
  handler: (db, actor, _task, input) => searchContactsAs(db, actor, input),
});
