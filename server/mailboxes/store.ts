import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { assistants, mailboxes, type MailboxProvider, type MailboxRow } from '@/db/schema';

/*
 * The mailbox row and what it shows on the user's own assistants (spec 1, Assistant):
 * `inboxPlatform` (`google` or `outlook`) while a mailbox is connected, `inboxAuthError` while
 * the provider refuses its tokens. Shared assistants belong to no one's mailbox and never show it.
 */

export const platformOf = (provider: MailboxProvider) => (provider === 'gmail' ? ('google' as const) : ('outlook' as const));

export async function mailboxOfUser(db: Tx, userId: string): Promise<MailboxRow | null> {
  const [row] = await db.select().from(mailboxes).where(eq(mailboxes.userId, userId));
  return row ?? null;
}

export async function mailboxById(db: Tx, id: string): Promise<MailboxRow | null> {
  const [row] = await db.select().from(mailboxes).where(eq(mailboxes.id, id));
  return row ?? null;
}

const ownAssistants = (userId: string) => and(eq(assistants.userId, userId), eq(assistants.scope, 'user'), isNull(assistants.deletedAt));

/** The user's own assistants show the mailbox as it stands (idempotent: only rows that differ are written). */
export async function showOnAssistants(db: Tx, mailbox: Pick<MailboxRow, 'userId' | 'provider' | 'authError'>): Promise<void> {
  const platform = platformOf(mailbox.provider);
  await db
    .update(assistants)
    .set({ inboxPlatform: platform, inboxAuthError: mailbox.authError })
    .where(
      and(
        ownAssistants(mailbox.userId),
        or(sql`${assistants.inboxPlatform} IS DISTINCT FROM ${platform}`, sql`${assistants.inboxAuthError} IS DISTINCT FROM ${mailbox.authError}`),
      ),
    );
}

/** No mailbox any more: the user's own assistants run on their hosted inbox again. */
export async function clearFromAssistants(db: Tx, userId: string): Promise<void> {
  await db.update(assistants).set({ inboxPlatform: null, inboxAuthError: false }).where(ownAssistants(userId));
}

/**
 * The provider refuses the mailbox's tokens (revoked, expired, consent withdrawn): nothing more
 * is read or sent until the user connects again, and their assistants say so.
 */
export async function markAuthError(db: Tx, mailbox: Pick<MailboxRow, 'id' | 'userId' | 'provider'>, reason: string): Promise<void> {
  await db.update(mailboxes).set({ authError: true, authErrorReason: reason.slice(0, 500) }).where(eq(mailboxes.id, mailbox.id));
  await showOnAssistants(db, { userId: mailbox.userId, provider: mailbox.provider, authError: true });
}
