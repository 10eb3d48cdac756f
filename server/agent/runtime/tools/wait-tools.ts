import { z } from 'zod';
import type { Db } from '@/db/client';
import { invalidFields } from '@/server/http/errors';
import { applyChange } from '@/server/tasks/move';
import { plan } from '@/server/tasks/transitions';
import { describeWaited, resolveWaitingOn, WaitEntries } from '@/server/tasks/waiting-on';
import { defineTool } from './registry';

/*
 * Waiting on people other than the user (spec: wait_for_reply). The task rests in
 * awaiting_non_user_response with the people named in waitingOnContacts and an alarm at
 * followUpAt, so it never waits without one; a reply from them or the alarm wakes it.
 */

export const waitForReply = defineTool({
  name: 'wait_for_reply',
  description:
    'After you have written to people other than the user (email or message), wait for their answer. Each entry of contacts names one person: ' +
    'an email address, a phone number in E.164 (+15551234567), {contactId} (the contact with all of their emails and phones), {slackUserId}, {teamsUserId} or {telegramUserId}. ' +
    'The run ends and the task waits; a reply from one of them on any channel wakes it, and if nobody has replied by followUpAt (required, in the future) you are woken to follow up. ' +
    'To wait for the user instead, use ask_user.',
  input: z.object({
    contacts: WaitEntries,
    followUpAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset' }),
  }),
  handler: async (db, actor, task, input, run) => {
    const wakeAt = new Date(input.followUpAt);
    if (wakeAt.getTime() <= run.now.getTime()) throw invalidFields([{ field: 'followUpAt', problem: 'must be in the future' }]);
    // Planned before anything is read or written: a task that cannot wait is refused as it is.
    plan(task, 'wait', 'awaiting_non_user_response', { wakeAt, headline: '' }, run.now);
    const waitingOnContacts = await resolveWaitingOn(db as Db, actor, input.contacts);
    const waiting = plan(task, 'wait', 'awaiting_non_user_response', { wakeAt, headline: headlineFor(waitingOnContacts.map((c) => c.email ?? describeWaited(c))) }, run.now);
    await applyChange(db, task, { ...waiting, waitingOnContacts }, 'wait');
    return { output: { waiting: true, waitingOnContacts, followUpAt: wakeAt.toISOString() }, endsRun: true };
  },
});

function headlineFor(people: string[]): string {
  const names = people.length > 3 ? `${people.slice(0, 3).join(', ')} and ${people.length - 3} more` : people.join(', ');
  const line = `Follow up: no reply yet from ${names}`;
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
