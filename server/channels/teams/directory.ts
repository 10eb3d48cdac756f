import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { activeMemberships } from '@/db/queries/memberships';
import { channelIdentities, oauthConnections } from '@/db/schema';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import { logger } from '@/server/logger';
import { linkChannelIdentity } from '../slack/identities';
import { tenantOf, type Activity } from './activity';
import type { TeamsBotConfig } from './config';
import { conversationMember } from './connector';

/*
 * Who is writing to the Teams bot (issue 33). The bot is the deployment's, so an activity names
 * no account: its sender is matched only within a tenant that an organization or team admin of an
 * account connected (the Teams connect flow records the tenant), through that tenant's directory
 * as the Bot Connector reports it (the member's email or UPN), to a user holding that address as
 * a verified email and belonging to the connecting organization (or an active member of the
 * connecting team). The match is kept as a linked identity (tenant + Entra object id). Anything
 * ambiguous (several accounts or users) links nobody: an unlinked sender is never the owner.
 */

export type TeamsPerson = { accountId: string; userId: string; tenantId: string; aadObjectId: string };

async function linkedPerson(db: Db, tenantId: string, aadObjectId: string): Promise<TeamsPerson | null | 'ambiguous'> {
  const rows = await db
    .select({ accountId: channelIdentities.accountId, userId: channelIdentities.userId })
    .from(channelIdentities)
    .where(and(eq(channelIdentities.provider, 'teams'), eq(channelIdentities.workspaceId, tenantId), eq(channelIdentities.externalUserId, aadObjectId)));
  if (rows.length > 1) return 'ambiguous';
  return rows[0] ? { ...rows[0], tenantId, aadObjectId } : null;
}

export async function teamsPerson(db: Db, cfg: TeamsBotConfig, activity: Activity): Promise<TeamsPerson | null> {
  const tenantId = tenantOf(activity);
  const aadObjectId = activity.from.aadObjectId?.toLowerCase();
  if (!tenantId || !aadObjectId) return null;
  const known = await linkedPerson(db, tenantId, aadObjectId);
  if (known === 'ambiguous') return null;
  if (known) return known;
  const connections = await db
    .select({ id: oauthConnections.id, accountId: oauthConnections.accountId, target: oauthConnections.target })
    .from(oauthConnections)
    .where(and(eq(oauthConnections.provider, 'teams'), eq(oauthConnections.purpose, 'connect'), sql`lower(${oauthConnections.details}->>'tenantId') = ${tenantId}`));
  if (!connections.length) return null;
  const member = await conversationMember(cfg, activity.serviceUrl, activity.conversation.id, activity.from.id);
  const address = member?.email ?? member?.userPrincipalName;
  if (!member || !address || member.aadObjectId?.toLowerCase() !== aadObjectId) return null;
  const found = new Map<string, { accountId: string; userId: string; connectionId: string }>();
  for (const c of connections) {
    const user = await findUserByVerifiedEmail(db, c.accountId, address);
    if (!user || user.status !== 'active') continue;
    const target = c.target as { target?: string; targetId?: string };
    const inside =
      target.target === 'org' ? user.organizationId === target.targetId : target.target === 'team' ? (await activeMemberships(db, user.id)).some((m) => m.t.id === target.targetId) : false;
    if (inside) found.set(`${c.accountId}:${user.id}`, { accountId: c.accountId, userId: user.id, connectionId: c.id });
  }
  if (found.size !== 1) {
    if (found.size > 1) logger.warn({ tenantId, aadObjectId }, 'teams: the sender matches users in more than one account; linking nobody');
    return null;
  }
  const [match] = [...found.values()];
  await linkChannelIdentity(db, { accountId: match!.accountId, userId: match!.userId, provider: 'teams', workspaceId: tenantId, externalUserId: aadObjectId, connectionId: match!.connectionId });
  return { accountId: match!.accountId, userId: match!.userId, tenantId, aadObjectId };
}
