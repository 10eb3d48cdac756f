import type { Db } from '@/db/client';
import type { MailboxRow } from '@/db/schema';
import type { MailboxClient } from './client';
import { takeMessage, unseen } from './take';

/** Takes each message not taken yet, in the order given (oldest first); a provider failure stops the poll, to be retried from the same cursor. */
export async function takeEach(db: Db, mailbox: MailboxRow, client: MailboxClient, ids: readonly string[]): Promise<number> {
  let handled = 0;
  for (const id of await unseen(db, mailbox.id, ids)) {
    await takeMessage(db, mailbox, client, id);
    handled++;
  }
  return handled;
}
