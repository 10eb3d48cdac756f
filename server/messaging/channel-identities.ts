import { and, desc, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { identifiers } from '@/db/schema';
import type { ChannelSender } from '@/server/channels/message';
import { linkedUserId, type ChannelProvider } from '@/server/channels/slack/identities';

/*
 * Who a Slack or Teams identity is, for the channel layer (issue 33). Only an identity linked to a
 * Steward user is proven (channels/slack/identities.ts: Slack's link flow, a connected tenant's
 * directory for Teams), and then it speaks for that user exactly as their verified email would:
 * the sender handed to routeInbound is the user's verified email, proven. This keeps the one rule
 * of identify.ts (only a proven, verified identifier names the owner) without a second lookup
 * there. An unlinked identity is an unknown sender: `<workspace>/<user>`, unproven.
 */

/** `appId`: the Slack app that received the message; an identity speaks for its user only through the app it was linked with. */
export type ChannelPerson = { provider: ChannelProvider; workspaceId: string; externalUserId: string; name?: string | null; appId?: string };

/** A verified email of the user (their primary first), or null. */
async function verifiedEmailOf(tx: Tx, userId: string): Promise<string | null> {
  const [row] = await tx
    .select({ value: identifiers.value })
    .from(identifiers)
    .where(and(eq(identifiers.userId, userId), eq(identifiers.type, 'email'), eq(identifiers.verified, true)))
    .orderBy(desc(identifiers.primary))
    .limit(1);
  return row?.value ?? null;
}

export async function channelSender(tx: Tx, accountId: string, person: ChannelPerson): Promise<{ sender: ChannelSender; userId: string | null }> {
  const userId = await linkedUserId(tx, accountId, person.provider, person.workspaceId, person.externalUserId, person.appId);
  const email = userId ? await verifiedEmailOf(tx, userId) : null;
  if (userId && email) return { sender: { kind: 'email', value: email, name: person.name ?? null, proven: true }, userId };
  return { sender: { kind: person.provider, value: `${person.workspaceId}/${person.externalUserId}`, name: person.name ?? null, proven: false }, userId: null };
}
