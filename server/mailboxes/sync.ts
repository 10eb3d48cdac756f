import { and, asc, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { mailboxes, mailboxProviders, type MailboxRow } from '@/db/schema';
import { gmailSettings } from '@/server/channels/gmail/config';
import { graphSettings } from '@/server/channels/graph/config';
import { logger } from '@/server/logger';
import { clientFor } from './client';
import { showOnAssistants } from './store';
import { syncGmail } from './sync-gmail';
import { syncOutlook } from './sync-outlook';
import { takeEach } from './take-each';
import { MailboxAuthError, withAccess } from './tokens';

/*
 * Polling a connected mailbox for new mail: right after it is connected, then every minute
 * (inngest/functions/mailbox-sync.ts), and for Microsoft 365 beside its change notifications. A
 * poll holds the mailbox's lease, so two pollers never walk the same cursor; every message is
 * taken once whatever overlaps (mailbox_messages is unique per provider id).
 */

export const POLL_INTERVAL_MS = 60_000;
const LEASE_MS = 5 * 60_000;

export type SyncReport = { mailboxId: string; ran: boolean; handled: number; error: string | null };

export const providerConfigured = (provider: MailboxRow['provider']) => (provider === 'gmail' ? gmailSettings() : graphSettings()) !== null;

export async function syncMailbox(db: Db, mailboxId: string, now = new Date()): Promise<SyncReport> {
  const report = (ran: boolean, handled = 0, error: string | null = null): SyncReport => ({ mailboxId, ran, handled, error });
  const [mailbox] = await db
    .update(mailboxes)
    .set({ syncLeaseUntil: new Date(now.getTime() + LEASE_MS) })
    .where(and(eq(mailboxes.id, mailboxId), eq(mailboxes.authError, false), or(isNull(mailboxes.syncLeaseUntil), lt(mailboxes.syncLeaseUntil, now))))
    .returning();
  if (!mailbox) return report(false);
  const settle = (set: Partial<MailboxRow>) => db.update(mailboxes).set({ ...set, syncLeaseUntil: null }).where(eq(mailboxes.id, mailbox.id));
  if (!providerConfigured(mailbox.provider)) {
    const error = `no provider configured for ${mailbox.provider}`;
    await settle({ lastSyncError: error });
    return report(true, 0, error);
  }
  try {
    await showOnAssistants(db, mailbox);
    const polled = await withAccess(db, mailbox, (token) => (mailbox.provider === 'gmail' ? syncGmail(db, mailbox, token, now).then((r) => ({ ...r, warning: null })) : syncOutlook(db, mailbox, token, now)));
    await settle({ cursor: polled.cursor, lastSyncedAt: now, lastSyncError: polled.warning });
    return report(true, polled.handled, polled.warning);
  } catch (e) {
    const error = (e as Error).message.slice(0, 500);
    await settle({ lastSyncError: error });
    if (!(e instanceof MailboxAuthError)) logger.warn({ err: e, mailboxId }, 'mailbox: poll failed; the next one retries');
    return report(true, 0, error);
  }
}

/** The mailboxes whose next poll is due (not polled for a minute, working tokens, provider configured). */
export async function dueMailboxes(db: Db, now = new Date(), limit = 500): Promise<string[]> {
  const before = new Date(now.getTime() - POLL_INTERVAL_MS + 5_000);
  const providers = mailboxProviders.filter(providerConfigured);
  if (!providers.length) return [];
  const rows = await db
    .select({ id: mailboxes.id })
    .from(mailboxes)
    .where(
      and(
        eq(mailboxes.authError, false),
        inArray(mailboxes.provider, providers),
        or(isNull(mailboxes.lastSyncedAt), lt(mailboxes.lastSyncedAt, before)),
        or(isNull(mailboxes.syncLeaseUntil), lt(mailboxes.syncLeaseUntil, now)),
      ),
    )
    .orderBy(asc(mailboxes.lastSyncedAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Messages a notification named, taken at once (no cursor moves: the lease is not needed). */
export async function takeNotified(db: Db, mailbox: MailboxRow, ids: readonly string[]): Promise<number> {
  if (mailbox.authError || !providerConfigured(mailbox.provider)) return 0;
  return withAccess(db, mailbox, (token) => takeEach(db, mailbox, clientFor(mailbox, token), ids));
}
