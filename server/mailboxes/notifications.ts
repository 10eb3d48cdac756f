import { inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { mailboxes } from '@/db/schema';
import { graphSettings } from '@/server/channels/graph/config';
import { matchesSecretHash } from '@/server/access/keys';
import { readNotifications, validationAnswer } from '@/server/channels/graph/notifications';
import { forbidden, notFound } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import { logger } from '@/server/logger';
import { takeNotified } from './sync';

/*
 * POST /api/channels/graph/notifications (spec 5, Provider webhooks). Graph first checks the URL
 * when a subscription is made: `?validationToken=…`, answered within 10 seconds with the token
 * as plain text. Then each notification names its subscription and carries its clientState:
 * only notifications whose clientState matches the subscription's are acted on, and the messages
 * they name are fetched after the answer (Graph wants one within 3 seconds). Without Microsoft
 * credentials the provider is off and the path answers 404.
 */



export async function graphNotifications(db: Db, req: ApiRequest, validationToken: string | undefined): Promise<Response> {
  if (!graphSettings()) throw notFound('Microsoft Graph notifications');
  if (validationToken !== undefined) return validationAnswer(validationToken);

  const notifications = await readNotifications(req);

  const subscriptionIds = [...new Set(notifications.map((n) => n.subscriptionId))];
  const rows = await db.select().from(mailboxes).where(inArray(mailboxes.subscriptionId, subscriptionIds));
  const bySubscription = new Map(rows.map((r) => [r.subscriptionId!, r]));
  const work = new Map<string, { mailbox: (typeof rows)[number]; ids: string[] }>();
  let refused = 0;
  for (const n of notifications) {
    const mailbox = bySubscription.get(n.subscriptionId);
    if (!mailbox || !matchesSecretHash(n.clientState, mailbox.clientStateHash)) {
      refused++;
      continue;
    }
    const entry = work.get(mailbox.id) ?? { mailbox, ids: [] };
    if (n.resourceData?.id) entry.ids.push(n.resourceData.id);
    work.set(mailbox.id, entry);
  }
  if (!work.size) {
    logger.warn({ refused, subscriptionIds }, 'graph notifications: refused (unknown subscription or wrong clientState)');
    throw forbidden('clientState: does not match the subscription', 'invalid_client_state');
  }
  if (refused) logger.warn({ refused }, 'graph notifications: some notifications were refused (unknown subscription or wrong clientState)');
  for (const { mailbox, ids } of work.values()) {
    void takeNotified(db, mailbox, ids).catch((err: unknown) => logger.warn({ err, mailboxId: mailbox.id }, 'graph notifications: the messages could not be taken now; the next poll will'));
  }
  return new Response(null, { status: 202, headers: { 'Cache-Control': 'no-store' } });
}
