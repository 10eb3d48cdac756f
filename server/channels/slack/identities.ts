import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { channelIdentities, type ChannelIdentityRow } from '@/db/schema';

/*
 * Slack and Teams identities linked to Steward users (db/schema/channel-apps.ts), shared by both
 * adapters. A link is made only by something that proves the person: Slack's link flow (the
 * person signed in to Slack for the assistant's app and Slack's oauth.v2.access named them), or
 * a Teams tenant's directory once an admin connected it. Linking an identity again moves it to
 * the user who linked it last; the identity then names nobody else.
 */

export type ChannelProvider = ChannelIdentityRow['provider'];

export type IdentityLink = {
  accountId: string;
  userId: string;
  provider: ChannelProvider;
  workspaceId: string;
  externalUserId: string;
  appId?: string | null;
  connectionId?: string | null;
};

export async function linkChannelIdentity(tx: Tx, link: IdentityLink): Promise<void> {
  await tx
    .insert(channelIdentities)
    .values({ ...link, appId: link.appId ?? null, connectionId: link.connectionId ?? null })
    .onConflictDoUpdate({
      target: [channelIdentities.accountId, channelIdentities.provider, channelIdentities.workspaceId, channelIdentities.externalUserId],
      set: { userId: link.userId, appId: link.appId ?? null, connectionId: link.connectionId ?? null, updatedAt: sql`now()` },
    });
}

/**
 * The Steward user an identity is linked to in the account, or null (an unlinked identity proves
 * nothing). With `throughApp`, only a link made through that Slack app's install counts: a press
 * another app received proves nothing about an identity linked elsewhere (issue 40).
 */
export async function linkedUserId(tx: Tx, accountId: string, provider: ChannelProvider, workspaceId: string, externalUserId: string, throughApp?: string): Promise<string | null> {
  const [row] = await tx
    .select({ userId: channelIdentities.userId, appId: channelIdentities.appId })
    .from(channelIdentities)
    .where(and(eq(channelIdentities.accountId, accountId), eq(channelIdentities.provider, provider), eq(channelIdentities.workspaceId, workspaceId), eq(channelIdentities.externalUserId, externalUserId)));
  if (!row || (throughApp !== undefined && row.appId !== throughApp)) return null;
  return row.userId;
}
