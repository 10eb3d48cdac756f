import { z } from 'zod';
import type { Db } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import { listContacts } from '@/server/contacts/service';
import { defineTool } from './registry';

/*
 * Contacts through their area's service, as the task's owner: the same checks as the owner's own
 * requests, so another user's rows stay out of reach (absent from lists). The services take a
 * Db; the step's transaction is one at run time. The memory tools are in memory-tools.ts.
 */

const asDb = (db: unknown) => db as Db;
const RESULTS = 10;

/** The effect itself, shared with the chat tool set (server/chats/tools): only the owner's actor and the input. */
export const SearchContactsInput = z.object({ query: z.string().trim().min(1).max(300) });

export async function searchContactsAs(db: unknown, actor: UserActor, input: z.infer<typeof SearchContactsInput>) {
  const { contacts, total } = await listContacts(asDb(db), actor, { q: input.query, page: 1, perPage: RESULTS });
  return {
    output: {
      total,
      contacts: contacts.map((c) => ({ id: c.id, name: c.name, preferredName: c.preferredName, email: c.email, title: c.title, company: c.company?.name ?? null })),
    },
  };
}

export const SEARCH_CONTACTS_DESCRIPTION = 'Search the user’s contacts by name, email, title or company.';

/** Looks at no subject: one tool for task runs and chat turns. */
export const searchContacts = defineTool<typeof SearchContactsInput, unknown>({
  name: 'search_contacts',
  description: SEARCH_CONTACTS_DESCRIPTION,
  input: SearchContactsInput,
  handler: (db, actor, _subject, input) => searchContactsAs(db, actor, input),
});
