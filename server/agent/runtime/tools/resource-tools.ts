import { z } from 'zod';
import type { Db } from '@/db/client';
import { listContacts } from '@/server/contacts/service';
import { createMemory, listMemories } from '@/server/memories/service';
import { defineTool } from './registry';

/*
 * Memories and contacts through their areas' services, as the task's owner: the same checks as
 * the owner's own requests, so another user's rows stay out of reach (404 / absent from lists).
 * The services take a Db; the step's transaction is one at run time.
 */

const asDb = (db: unknown) => db as Db;
const RESULTS = 10;

export const saveMemory = defineTool({
  name: 'save_memory',
  description: 'Remember something about the user for later tasks (a preference, a fact). tags are optional labels.',
  input: z.object({ content: z.string().trim().min(1).max(10_000), tags: z.array(z.string().max(300)).max(20).optional() }),
  handler: async (db, actor, _task, input) => {
    const { memory } = await createMemory(asDb(db), actor, { content: input.content, tags: input.tags });
    return { output: { saved: true, memoryId: memory.id, tags: memory.tags } };
  },
});

export const searchMemories = defineTool({
  name: 'search_memories',
  description: 'Search the user’s memories (their own and their teams’) for text.',
  input: z.object({ query: z.string().trim().min(1).max(500) }),
  handler: async (db, actor, _task, input) => {
    const { memories, total } = await listMemories(asDb(db), actor, { search: input.query, page: 1, perPage: RESULTS });
    return { output: { total, memories: memories.map((m) => ({ id: m.id, content: m.content, tags: m.tags, scope: m.scope, createdAt: m.createdAt })) } };
  },
});

export const searchContacts = defineTool({
  name: 'search_contacts',
  description: 'Search the user’s contacts by name, email, title or company.',
  input: z.object({ query: z.string().trim().min(1).max(300) }),
  handler: async (db, actor, _task, input) => {
    const { contacts, total } = await listContacts(asDb(db), actor, { q: input.query, page: 1, perPage: RESULTS });
    return {
      output: {
        total,
        contacts: contacts.map((c) => ({ id: c.id, name: c.name, preferredName: c.preferredName, email: c.email, title: c.title, company: c.company?.name ?? null })),
      },
    };
  },
});
