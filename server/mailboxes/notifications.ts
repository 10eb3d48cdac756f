import { inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { mailboxes } from '@/db/schema';
import { graphSettings } from '@/server/channels/graph/config';
import { clientStateMatches, NotificationCollection } from '@/server/channels/graph/notifications';
import { AppError, badRequest, forbidden, notFound } from '@/server/http/errors';
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

const MAX_BODY = 1_000_000;

const plain = (status: number, text: string) => new Response(text, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' } });

export async function graphNotifications(db: Db, req: ApiRequest, validationToken: string | undefined): Promise<Response> {
  if (!graphSettings()) throw notFound('Microsoft Graph notifications');
  if (validationToken !== undefined) return plain(200, validationToken);

  const text = await req.text();
  if (text.length > MAX_BODY) throw new AppError(413, 'payload_too_large', 'The notification is too large');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest('body: not JSON');
  }
  const parsed = NotificationCollection.safeParse(json);
  if (!parsed.success) throw badRequest('body: not a Microsoft Graph change notification collection');

  const subscriptionIds = [...new Set(parsed.data.value.map((n) => n.subscriptionId))];
  const rows = await db.select().from(mailboxes).where(inArray(mailboxes.subscriptionId, subscriptionIds));
  const bySubscription = new Map(rows.map((r) => [r.subscriptionId!, r]));
  const work = new Map<string, { mailbox: (typeof rows)[number]; ids: string[] }>();
  let refused = 0;
  for (const n of parsed.data.value) {
    const mailbox = bySubscription.get(n.subscriptionId);
    if (!mailbox || !clientStateMatches(n.clientState, mailbox.clientStateHash)) {
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
