import { createHash } from 'node:crypto';
import { z } from 'zod';
import { sameHash } from '@/server/access/keys';

/*
 * What Graph posts to the notification URL (a changeNotificationCollection): each notification
 * names its subscription and carries the clientState given when it was created, which is the
 * only thing that proves it came from Graph for that subscription. Steward keeps the clientState
 * as a SHA-256 hash and compares in constant time.
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

export const clientStateHash = (clientState: string) => createHash('sha256').update(clientState, 'utf8').digest('hex');

/** Whether a notification's clientState is the one whose hash the subscription keeps. */
export function clientStateMatches(presented: string | null | undefined, storedHash: string | null): boolean {
  if (!presented || !storedHash) return false;
  return sameHash(clientStateHash(presented), storedHash);
}
