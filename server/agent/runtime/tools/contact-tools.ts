import type { Db } from '@/db/client';
import { SaveContactInput, saveContactAs } from '@/server/contacts/save';
import { resolveTaskDispatchMode } from '@/server/policy/autonomy-resolve';
import { defineTool } from './registry';

/*
 * save_contact: the agent keeps the user's contacts (a new person, a changed title, who reports
 * to whom). "Changes to the user's contacts" is the autonomy matrix's `contacts` action type, so
 * the user's cell decides. In `auto` (the new-user default) the change is made at once, through
 * the contacts service as the user. Under `time-boxed` or `manual`, or in a run that read outside
 * content (a forged signature must not rewrite the address book), nothing changes: the model is
 * told to put the change to the user. A review-window or approval path would need a dispatch type
 * of its own in the approvals area.
 */

const asDb = (db: unknown) => db as Db;

export const saveContact = defineTool({
  name: 'save_contact',
  description:
    'Add a person to the user’s contacts, or update the contact holding this email (only the fields you give change), and record relationships to other contacts of the user by their email (type: manager, assistant, colleague, spouse…). ' +
    'Whether it is saved at once depends on the user’s settings for contact changes: the answer says whether it was saved, and if not, ask the user.',
  input: SaveContactInput,
  handler: async (db, actor, task, input) => {
    const { mode } = await resolveTaskDispatchMode(db, actor.user, 'contacts', [], task.approvalMode ?? null);
    if (task.tainted || mode !== 'auto') {
      return {
        output: {
          saved: false,
          reason: task.tainted
            ? 'This task read content from outside the user, so it may not change their contacts on its own.'
            : `The user reviews changes to their contacts (their setting is ${mode}).`,
          next: 'Ask the user (ask_user) whether to make this change, naming it exactly.',
        },
      };
    }
    const saved = await saveContactAs(asDb(db), actor, input);
    return {
      output: {
        saved: true,
        created: saved.created,
        contactId: saved.contact.id,
        email: saved.contact.email,
        relationships: saved.related,
        ...(saved.unknown.length ? { notContacts: saved.unknown, note: 'These addresses are not among the user’s contacts: save them first to relate them.' } : {}),
      },
    };
  },
});
