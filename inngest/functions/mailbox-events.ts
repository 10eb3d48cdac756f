import { eventType } from 'inngest';
import { z } from 'zod';

/*
 * The events of connected mailboxes' polling (server/mailboxes/sync.ts). Kept beside their
 * functions rather than in inngest/events.ts only while that file is being edited by others;
 * they belong there.
 */
export const mailboxEvents = {
  /** Poll every mailbox whose poll is due now (the cron does it every minute). */
  mailboxesPollDue: eventType('steward/mailboxes.poll-due', { schema: z.object({}).loose() }),
  /** Poll one connected mailbox for new mail (and keep its Graph subscription alive). */
  mailboxSyncRequested: eventType('steward/mailbox.sync-requested', { schema: z.object({ mailboxId: z.string().min(1) }) }),
};
