import { z } from 'zod';
import type { Db } from '@/db/client';
import type { WaitingOnContact } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { listContacts } from '@/server/contacts/service';
import { invalidFields } from '@/server/http/errors';
import { applyChange } from '@/server/tasks/move';
import { plan } from '@/server/tasks/transitions';
import { defineTool } from './registry';

/*
 * Waiting on people other than the user (spec: wait_for_reply). The task rests in
 * awaiting_non_user_response with the people named in waitingOnContacts and an alarm at
 * followUpAt, so it never waits without one; a reply from them or the alarm wakes it.
 */

const MAX_CONTACTS = 20;
/** One page of the contacts service holds every candidate an address search finds in practice. */
const CANDIDATES = 100;

const addressesOf = (c: { email: string; emails: Array<Record<string, unknown>> }) =>
  [c.email, ...c.emails.map((e) => String(e.address ?? ''))].map((a) => a.trim().toLowerCase());

/**
 * Each address as the owner knows it: the owner's contact holding it (its id and name), found
 * through the contacts service as the owner, so another user's contact with the same address is
 * never named; an address no contact holds stays a bare email.
 */
async function resolveContacts(db: Db, actor: UserActor, emails: string[]): Promise<WaitingOnContact[]> {
  const out: WaitingOnContact[] = [];
  for (const email of emails) {
    const { contacts } = await listContacts(db, actor, { q: email, page: 1, perPage: CANDIDATES });
    const match = contacts.find((c) => addressesOf(c).includes(email));
    out.push(match ? { email, name: match.name ?? match.preferredName ?? null, contactId: match.id } : { email, name: null, contactId: null });
  }
  return out;
}

export const waitForReply = defineTool({
  name: 'wait_for_reply',
  description:
    'After you have written to people other than the user (email or message), wait for their answer: contacts are their email addresses. ' +
    'The run ends and the task waits; a reply from one of them wakes it, and if nobody has replied by followUpAt (required, in the future) you are woken to follow up. ' +
    'To wait for the user instead, use ask_user.',
  input: z.object({
    contacts: z
      .array(z.email({ message: 'must be an email address' }).max(320))
      .min(1, 'must name at least one email address')
      .max(MAX_CONTACTS, `must name at most ${MAX_CONTACTS} email addresses`),
    followUpAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset' }),
  }),
  handler: async (db, actor, task, input, run) => {
    const wakeAt = new Date(input.followUpAt);
    if (wakeAt.getTime() <= run.now.getTime()) throw invalidFields([{ field: 'followUpAt', problem: 'must be in the future' }]);
    const emails = [...new Set(input.contacts.map((e) => e.trim().toLowerCase()))];
    // Planned before anything is read or written: a task that cannot wait is refused as it is.
    const waiting = plan(task, 'wait', 'awaiting_non_user_response', { wakeAt, headline: headlineFor(emails) }, run.now);
    const waitingOnContacts = await resolveContacts(db as Db, actor, emails);
    await applyChange(db, task, { ...waiting, waitingOnContacts }, 'wait');
    return { output: { waiting: true, waitingOnContacts, followUpAt: wakeAt.toISOString() }, endsRun: true };
  },
});

function headlineFor(emails: string[]): string {
  const names = emails.length > 3 ? `${emails.slice(0, 3).join(', ')} and ${emails.length - 3} more` : emails.join(', ');
  const line = `Follow up: no reply yet from ${names}`;
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
