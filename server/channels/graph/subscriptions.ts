import { z } from 'zod';
import { ProviderHttpError } from '../providers';
import { graphRequest, type GraphAccess } from './api';

/*
 * Graph change notifications for new mail in the Inbox (POST /subscriptions). Graph checks the
 * notification URL first (the validation token handshake, answered by Steward's notification
 * endpoint), then posts each change there with the subscription's clientState. A mail
 * subscription lives at most a little under seven days: Steward asks for three and renews it
 * when less than one is left.
 */

export const INBOX_RESOURCE = "me/mailFolders('Inbox')/messages";
export const SUBSCRIPTION_DAYS = 3;

const Subscription = z.object({ id: z.string().min(1), expirationDateTime: z.string().min(1) }).loose();
export type GraphSubscription = { id: string; expiresAt: Date };

async function subscriptionOf(res: Response): Promise<GraphSubscription> {
  const parsed = Subscription.safeParse(await res.json().catch(() => null));
  const at = parsed.success ? new Date(parsed.data.expirationDateTime) : null;
  if (!parsed.success || !at || Number.isNaN(at.getTime())) throw new ProviderHttpError('Microsoft Graph', res.status, 'invalid_response', 'Microsoft Graph answered a subscription request without a subscription', true);
  return { id: parsed.data.id, expiresAt: at };
}

const expiry = (now: Date) => new Date(now.getTime() + SUBSCRIPTION_DAYS * 86_400_000).toISOString();

/** A subscription on any resource (the Inbox's messages, a calendar's events), until `expiresAt` (each resource has its own longest life). */
export async function createSubscription(g: GraphAccess, s: { resource: string; changeType: string; notificationUrl: string; clientState: string; expiresAt: string }): Promise<GraphSubscription> {
  const body = JSON.stringify({ changeType: s.changeType, notificationUrl: s.notificationUrl, resource: s.resource, expirationDateTime: s.expiresAt, clientState: s.clientState, latestSupportedTlsVersion: 'v1_2' });
  return subscriptionOf(await graphRequest(g, 'POST', '/subscriptions', { body, contentType: 'application/json' }));
}

export async function createInboxSubscription(g: GraphAccess, notificationUrl: string, clientState: string, now = new Date()): Promise<GraphSubscription> {
  return createSubscription(g, { resource: INBOX_RESOURCE, changeType: 'created', notificationUrl, clientState, expiresAt: expiry(now) });
}

/** Extends a subscription (by default for the mail's days); a subscription Graph no longer has answers 404 (ProviderHttpError): create a new one. */
export async function renewSubscription(g: GraphAccess, id: string, now = new Date(), expiresAt = expiry(now)): Promise<GraphSubscription> {
  const res = await graphRequest(g, 'PATCH', `/subscriptions/${encodeURIComponent(id)}`, { body: JSON.stringify({ expirationDateTime: expiresAt }), contentType: 'application/json' });
  return subscriptionOf(res);
}

export async function deleteSubscription(g: GraphAccess, id: string): Promise<void> {
  await graphRequest(g, 'DELETE', `/subscriptions/${encodeURIComponent(id)}`);
}
