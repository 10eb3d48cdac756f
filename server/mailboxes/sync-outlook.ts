import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { mailboxes, type MailboxRow } from '@/db/schema';
import { graphInboxDelta, type GraphAccess } from '@/server/channels/graph/api';
import { graphConfig } from '@/server/channels/graph/config';
import { hashSecret } from '@/server/access/keys';
import { createInboxSubscription, renewSubscription } from '@/server/channels/graph/subscriptions';
import { ProviderHttpError } from '@/server/channels/providers';
import { publicOrigin } from '@/server/http/public-origin';
import { logger } from '@/server/logger';
import { clientFor } from './client';
import { takeEach } from './take-each';

/*
 * Microsoft 365's new mail: change notifications on the Inbox (a subscription made at the first
 * poll and renewed by later ones), and the Inbox's delta query as the fallback poll, so mail
 * whose notification was lost (Steward down, the URL unreachable) still arrives.
 */

export const GRAPH_NOTIFICATION_PATH = '/api/channels/graph/notifications';
const RENEW_WITHIN_MS = 86_400_000;

/** Keeps the Inbox subscription alive; a failure is reported, and the delta poll carries on alone. */
async function keepSubscription(db: Db, mailbox: MailboxRow, g: GraphAccess, now: Date): Promise<string | null> {
  try {
    if (mailbox.subscriptionId && mailbox.subscriptionExpiresAt && mailbox.subscriptionExpiresAt.getTime() - now.getTime() > RENEW_WITHIN_MS) return null;
    if (mailbox.subscriptionId) {
      try {
        const renewed = await renewSubscription(g, mailbox.subscriptionId, now);
        await db.update(mailboxes).set({ subscriptionExpiresAt: renewed.expiresAt }).where(eq(mailboxes.id, mailbox.id));
        return null;
      } catch (e) {
        if (!(e instanceof ProviderHttpError && e.status === 404)) throw e;
      }
    }
    // The clientState proves each notification: only its hash is kept, written before Graph can send any.
    const clientState = randomBytes(32).toString('base64url');
    await db.update(mailboxes).set({ clientStateHash: hashSecret(clientState), subscriptionId: null, subscriptionExpiresAt: null }).where(eq(mailboxes.id, mailbox.id));
    const created = await createInboxSubscription(g, `${publicOrigin().origin}${GRAPH_NOTIFICATION_PATH}`, clientState, now);
    await db.update(mailboxes).set({ subscriptionId: created.id, subscriptionExpiresAt: created.expiresAt }).where(eq(mailboxes.id, mailbox.id));
    return null;
  } catch (e) {
    if (e instanceof ProviderHttpError && e.status === 401) throw e;
    logger.warn({ err: e, mailboxId: mailbox.id }, 'mailbox: the Graph subscription could not be kept; polling only');
    return `change notifications are off: ${(e as Error).message}`;
  }
}

export async function syncOutlook(db: Db, mailbox: MailboxRow, accessToken: string, now: Date): Promise<{ cursor: string; handled: number; warning: string | null }> {
  const g: GraphAccess = { cfg: graphConfig(), accessToken };
  const warning = await keepSubscription(db, mailbox, g, now);
  const since = new Date((mailbox.lastSyncedAt ?? mailbox.connectedAt).getTime() - 60_000);
  let delta;
  try {
    delta = await graphInboxDelta(g, mailbox.cursor, since);
  } catch (e) {
    // An expired or unknown delta state: a first round again, over mail since the last poll.
    if (!(mailbox.cursor && e instanceof ProviderHttpError && (e.status === 410 || e.status === 400))) throw e;
    delta = await graphInboxDelta(g, null, since);
  }
  return { cursor: delta.cursor, handled: await takeEach(db, mailbox, clientFor(mailbox, accessToken), delta.added), warning };
}
