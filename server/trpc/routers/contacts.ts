import { z } from 'zod';
import { CreateContactBody, ListContactsQuery } from '@/server/contacts/contracts';
import { createContact, deleteContact, listContacts } from '@/server/contacts/service';
import { router, userProcedure } from '../init';

const Contact = z.object({ contactId: z.string().min(1) });

/** The Contacts page: the contacts service of /contacts, with the session's person. */
export const contactsRouter = router({
  list: userProcedure.input(ListContactsQuery.pick({ page: true, perPage: true, search: true }).prefault({})).query(({ ctx, input }) => listContacts(ctx.db, ctx.actor, input)),
  create: userProcedure.input(CreateContactBody.pick({ email: true, name: true, title: true })).mutation(({ ctx, input }) => createContact(ctx.db, ctx.actor, input)),
  remove: userProcedure.input(Contact).mutation(({ ctx, input }) => deleteContact(ctx.db, ctx.actor, input.contactId)),
});
