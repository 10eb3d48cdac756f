import type { Db } from '@/db/client';
import type { MailboxRow } from '@/db/schema';
import { gmailSettings } from '@/server/channels/gmail/config';
import { gmailRevoke } from '@/server/channels/gmail/oauth';
import { graphSettings } from '@/server/channels/graph/config';
import { deleteSubscription } from '@/server/channels/graph/subscriptions';
import { logger } from '@/server/logger';
import { openTokens, withAccess } from './tokens';

/**
 * What a mailbox leaving Steward asks of its provider, best effort (the row goes whatever the
 * provider says): Graph stops notifying (the subscription is deleted), and on disconnect Google
 * revokes the grant, so the mailbox no longer trusts Steward. Microsoft has no revocation
 * endpoint for delegated tokens: the user removes the app's consent in their account.
 */
export async function retireMailbox(db: Db, mailbox: MailboxRow, opts: { revoke: boolean }): Promise<void> {
  try {
    if (mailbox.provider === 'outlook' && mailbox.subscriptionId && !mailbox.authError) {
      const cfg = graphSettings();
      if (cfg) await withAccess(db, mailbox, (accessToken) => deleteSubscription({ cfg, accessToken }, mailbox.subscriptionId!));
    }
    if (mailbox.provider === 'gmail' && opts.revoke && !mailbox.authError) {
      const cfg = gmailSettings();
      const tokens = await openTokens(db, mailbox);
      if (cfg) await gmailRevoke(cfg, tokens.refreshToken ?? tokens.accessToken);
    }
  } catch (err) {
    logger.warn({ err, mailboxId: mailbox.id }, 'mailbox: the provider could not be told the mailbox was disconnected');
  }
}
