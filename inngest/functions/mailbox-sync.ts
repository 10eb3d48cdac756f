import { sharedDatabase } from '@/db/client';
import { dueMailboxes, syncMailbox } from '@/server/mailboxes/sync';
import { inngest } from '../client';
import { mailboxEvents } from './mailbox-events';

const db = () => sharedDatabase().db;

/**
 * Every minute: each connected mailbox not polled for a minute gets its poll (Gmail history,
 * Microsoft 365 delta and subscription renewal), one run per mailbox at a time. The event id names
 * the mailbox and the minute, so an Inngest server keeps one request per mailbox per minute.
 */
export const mailboxPoll = inngest.createFunction(
  { id: 'mailbox-poll', triggers: [{ cron: '* * * * *' }, mailboxEvents.mailboxesPollDue] },
  async ({ step }) => {
    const due = await step.run('find', () => dueMailboxes(db()));
    const minute = Math.floor(Date.now() / 60_000);
    if (due.length) await step.sendEvent('poll', due.map((mailboxId) => mailboxEvents.mailboxSyncRequested.create({ mailboxId }, { id: `mailbox-sync-${mailboxId}-${minute}` })));
    return { polled: due.length };
  },
);

/**
 * One mailbox's poll. The step may run again after a crash: the poll starts from the stored
 * cursor and every message is taken once (mailbox_messages), so nothing is handed on twice.
 */
export const mailboxSync = inngest.createFunction(
  { id: 'mailbox-sync', retries: 1, concurrency: { key: 'event.data.mailboxId', limit: 1 }, triggers: [mailboxEvents.mailboxSyncRequested] },
  async ({ event, step }) => step.run('poll', () => syncMailbox(db(), event.data.mailboxId)),
);
