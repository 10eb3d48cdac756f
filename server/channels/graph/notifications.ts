import { z } from 'zod';
import { AppError, badRequest } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';

/*
 * What Graph posts to the notification URL (a changeNotificationCollection): each notification
 * names its subscription and carries the clientState given when it was created, which is the
 * only thing that proves it came from Graph for that subscription. Steward keeps the clientState
 * as a SHA-256 hash and compares in constant time (hashSecret and matchesSecretHash, access/keys.ts).
 */

const Notification = z
  .object({
    subscriptionId: z.string().min(1).max(200),
    clientState: z.string().max(255).nullable().optional(),
    changeType: z.string().max(50).optional(),
    resource: z.string().max(2000).optional(),
    resourceData: z.object({ id: z.string().min(1).max(1000) }).loose().nullable().optional(),
    lifecycleEvent: z.string().max(100).optional(),
  })
  .loose();
export const NotificationCollection = z.object({ value: z.array(Notification).min(1).max(1000) }).loose();
export type GraphNotification = z.infer<typeof Notification>;

const MAX_BODY = 1_000_000;

/** Graph's check of a notification URL: the validation token, as plain text (within 10 seconds). */
export const validationAnswer = (validationToken: string) =>
  new Response(validationToken, { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' } });

/** A posted change-notification collection, read and checked (413 too large, 400 not JSON or not one). */
export async function readNotifications(req: ApiRequest): Promise<GraphNotification[]> {
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
  return parsed.data.value;
}
