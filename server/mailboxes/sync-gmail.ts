import type { Db } from '@/db/client';
import type { MailboxRow } from '@/db/schema';
import { gmailHistory, gmailList, gmailProfile, type GmailAccess } from '@/server/channels/gmail/api';
import { gmailConfig } from '@/server/channels/gmail/config';
import { ProviderHttpError } from '@/server/channels/providers';
import { clientFor } from './client';
import { takeEach } from './take-each';

/*
 * Gmail's new mail by polling its history (users.history.list) from the history id stored at the
 * last poll: messages added to the INBOX. Gmail keeps history for about a week; an older id
 * answers 404, and the inbox is then listed for mail received since the last poll instead.
 */

export async function syncGmail(db: Db, mailbox: MailboxRow, accessToken: string, now: Date): Promise<{ cursor: string; handled: number }> {
  const g: GmailAccess = { cfg: gmailConfig(), accessToken };
  const client = clientFor(mailbox, accessToken);
  if (!mailbox.cursor) return { cursor: (await gmailProfile(g)).historyId, handled: 0 };
  try {
    const history = await gmailHistory(g, mailbox.cursor);
    const ids = history.added.filter((m) => !m.labelIds.includes('SENT') && !m.labelIds.includes('DRAFT')).map((m) => m.id);
    return { cursor: history.historyId, handled: await takeEach(db, mailbox, client, ids) };
  } catch (e) {
    if (!(e instanceof ProviderHttpError && e.status === 404)) throw e;
  }
  // The stored history id is too old: what arrived since the last poll, then a new starting point.
  const cursor = (await gmailProfile(g)).historyId;
  const since = Math.floor((mailbox.lastSyncedAt ?? mailbox.connectedAt ?? now).getTime() / 1000) - 60;
  const ids = await gmailList(g, `in:inbox after:${since}`, 100);
  return { cursor, handled: await takeEach(db, mailbox, client, ids.reverse()) };
}
