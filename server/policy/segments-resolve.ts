import { and, asc, eq, isNotNull, or, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { activeMemberships } from '@/db/queries/memberships';
import { accountModelTiers, modelTierSegments, organizations, users, type ModelTierSegmentRow } from '@/db/schema';

type Tier = NonNullable<ModelTierSegmentRow['taskModelTier']>;
export type TierKind = 'task' | 'chat';

/** Where the tier came from: which step of the resolution answered. */
export type TierSource =
  | { from: 'segment'; segmentId: string; segmentName: string; matchedBy: 'user' | 'team' | 'organization' }
  | { from: 'organization'; organizationId: string }
  | { from: 'account' }
  | { from: 'default' };

/** The order in which segment matches count: the narrowest membership wins. */
const MATCH_ORDER = ['user', 'team', 'organization'] as const;

/**
 * The tier of a chat or task the agent creates itself (spec document 2, Model tiers): a matching
 * segment's default first, then the organization's, then the account's, then `medium`.
 *
 * A segment matches when it lists the user, one of the user's active teams, or the user's
 * organization, and has a default for that kind (a segment with only a chat default says nothing
 * about tasks). When several match, a segment that names the user wins over one that names
 * their team, which wins over one that names their organization: the narrower choice was made
 * for them on purpose. Among segments matching at the same level the oldest wins, so adding a
 * segment never changes the tier of people an existing one already covers.
 */
export async function explainAgentTier(db: Tx, input: { accountId: string; userId: string; kind: TierKind }): Promise<{ tier: Tier; source: TierSource }> {
  const [user] = await db
    .select({ organizationId: users.organizationId })
    .from(users)
    .where(and(eq(users.id, input.userId), eq(users.accountId, input.accountId)));
  const organizationId = user?.organizationId ?? null;
  const teamIds = user ? (await activeMemberships(db, input.userId)).map((m) => m.t.id) : [];
  const column = input.kind === 'task' ? modelTierSegments.taskModelTier : modelTierSegments.chatModelTier;

  const matches = [sql`${input.userId} = ANY(${modelTierSegments.userIds})`];
  if (teamIds.length) matches.push(sql`${modelTierSegments.teamIds} && ${sql`ARRAY[${sql.join(teamIds.map((t) => sql`${t}`), sql`, `)}]::text[]`}`);
  if (organizationId) matches.push(sql`${organizationId} = ANY(${modelTierSegments.organizationIds})`);
  const segments = user
    ? await db
        .select()
        .from(modelTierSegments)
        .where(and(eq(modelTierSegments.accountId, input.accountId), isNotNull(column), or(...matches)))
        .orderBy(asc(modelTierSegments.createdAt), asc(modelTierSegments.id))
    : [];
  for (const level of MATCH_ORDER) {
    const hit = segments.find((s) =>
      level === 'user' ? s.userIds.includes(input.userId) : level === 'team' ? s.teamIds.some((t) => teamIds.includes(t)) : !!organizationId && s.organizationIds.includes(organizationId),
    );
    const tier = hit && (input.kind === 'task' ? hit.taskModelTier : hit.chatModelTier);
    if (hit && tier) return { tier, source: { from: 'segment', segmentId: hit.id, segmentName: hit.name, matchedBy: level } };
  }

  if (organizationId) {
    const [org] = await db
      .select({ task: organizations.taskModelTier, chat: organizations.chatModelTier })
      .from(organizations)
      .where(and(eq(organizations.id, organizationId), eq(organizations.accountId, input.accountId)));
    const tier = org?.[input.kind];
    if (tier) return { tier, source: { from: 'organization', organizationId } };
  }
  const [account] = await db.select().from(accountModelTiers).where(eq(accountModelTiers.accountId, input.accountId));
  const accountTier = input.kind === 'task' ? account?.taskModelTier : account?.chatModelTier;
  if (accountTier) return { tier: accountTier, source: { from: 'account' } };
  return { tier: 'medium', source: { from: 'default' } };
}

/** The tier only: what create_task (server/tasks/delegation.ts) and an agent-opened chat use when no tier was named. */
export async function tierForAgentCreated(db: Tx, input: { accountId: string; userId: string; kind: TierKind }): Promise<Tier> {
  return (await explainAgentTier(db, input)).tier;
}

/** The account's own default for API-created chats and tasks (after their own tier and the organization's). */
export async function accountDefaultTier(db: Tx, accountId: string, kind: TierKind): Promise<Tier | null> {
  const [account] = await db.select().from(accountModelTiers).where(eq(accountModelTiers.accountId, accountId));
  return (kind === 'task' ? account?.taskModelTier : account?.chatModelTier) ?? null;
}
