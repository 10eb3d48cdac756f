import { z } from 'zod';
import { CreateContactBody, ListContactsQuery, UpdateContactBody } from '@/server/contacts/contracts';
import { createContact, deleteContact, getContact, listContacts, updateContact } from '@/server/contacts/service';
import { router, userProcedure } from '../init';

const Contact = z.object({ contactId: z.string().min(1) });
/** What the Contacts page edits: names, role and company, phones, timezone, tags, and who sees it. */
const ContactEdit = UpdateContactBody.pick({ name: true, preferredName: true, title: true, company: true, phones: true, timezone: true, tags: true, scope: true });

/** The Contacts page: the contacts service of /contacts, with the session's person. */
export const contactsRouter = router({
  list: userProcedure.input(ListContactsQuery.pick({ page: true, perPage: true, search: true }).prefault({})).query(({ ctx, input }) => listContacts(ctx.db, ctx.actor, input)),
  get: userProcedure.input(Contact).query(({ ctx, input }) => getContact(ctx.db, ctx.actor, input.contactId)),
  create: userProcedure.input(CreateContactBody.pick({ email: true, name: true, title: true })).mutation(({ ctx, input }) => createContact(ctx.db, ctx.actor, input)),
  update: userProcedure.input(Contact.extend({ patch: ContactEdit })).mutation(({ ctx, input }) => updateContact(ctx.db, ctx.actor, input.contactId, input.patch)),
  remove: userProcedure.input(Contact).mutation(({ ctx, input }) => deleteContact(ctx.db, ctx.actor, input.contactId)),
});
