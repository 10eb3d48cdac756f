import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants, channelIdentities, oauthConnections, organizations, slackApps, slackInstallations, teams, users } from '@/db/schema';
import { assertOperates, type AccountOperator } from '@/server/accounts/operator';
import { deploymentSlackSecrets } from '@/server/channels/slack/config';
import { shownStatus } from '@/server/channels/slack/credentials';
import { teamsBotConfig } from '@/server/channels/teams/config';

/**
 * The account's workplace chat apps as the console shows them: every assistant's Slack app (the
 * account's marketplace apps and people's own workspace apps) with its installations, and the
 * Teams bot: whether the deployment has one, which tenants organizations and teams connected, how
 * many people linked their identities. Never a secret.
 */
export async function consoleChannelApps(db: Db, accountId: string, by: AccountOperator) {
  assertOperates(by, accountId);
  const [apps, installs, tenants, identities, accountAssistants] = await Promise.all([
    db
      .select({ app: slackApps, assistantName: assistants.name, ownerEmail: users.email })
      .from(slackApps)
      .leftJoin(assistants, eq(assistants.id, slackApps.assistantId))
      .leftJoin(users, eq(users.id, slackApps.userId))
      .where(eq(slackApps.accountId, accountId))
      .orderBy(desc(slackApps.createdAt), desc(slackApps.id))
      .limit(500),
    db
      .select({ appId: slackInstallations.appId, teamId: slackInstallations.teamId, installedAt: slackInstallations.createdAt })
      .from(slackInstallations)
      .where(eq(slackInstallations.accountId, accountId))
      .orderBy(desc(slackInstallations.createdAt)),
    db
      .select({ id: oauthConnections.id, target: oauthConnections.target, details: oauthConnections.details, createdAt: oauthConnections.createdAt, orgName: organizations.name, teamName: teams.name })
      .from(oauthConnections)
      .leftJoin(organizations, and(eq(organizations.id, sql`${oauthConnections.target}->>'targetId'`), eq(organizations.accountId, accountId)))
      .leftJoin(teams, and(eq(teams.id, sql`${oauthConnections.target}->>'targetId'`), eq(teams.accountId, accountId)))
      .where(and(eq(oauthConnections.accountId, accountId), eq(oauthConnections.provider, 'teams')))
      .orderBy(desc(oauthConnections.createdAt))
      .limit(200),
    db
      .select({ provider: channelIdentities.provider, n: count() })
      .from(channelIdentities)
      .where(eq(channelIdentities.accountId, accountId))
      .groupBy(channelIdentities.provider),
    db.select({ id: assistants.id, name: assistants.name }).from(assistants).where(and(eq(assistants.accountId, accountId), eq(assistants.scope, 'account'), eq(assistants.status, 'active'))),
  ]);
  const linked = Object.fromEntries(identities.map((i) => [i.provider, i.n]));
  return {
    ok: true as const,
    slack: {
      deploymentCredentials: deploymentSlackSecrets() !== null,
      linkedIdentities: linked.slack ?? 0,
      accountAssistants: accountAssistants,
      apps: apps.map(({ app, assistantName, ownerEmail }) => ({
        id: app.id,
        assistant: { id: app.assistantId, name: assistantName ?? null },
        kind: app.kind,
        owner: app.userId ? { id: app.userId, email: ownerEmail ?? null } : null,
        botDisplayName: app.botDisplayName,
        status: shownStatus(app),
        createdAt: app.createdAt.toISOString(),
        installations: installs.filter((i) => i.appId === app.id).map((i) => ({ teamId: i.teamId, installedAt: i.installedAt.toISOString() })),
      })),
    },
    teams: {
      botConfigured: teamsBotConfig() !== null,
      linkedIdentities: linked.teams ?? 0,
      connections: tenants.map((t) => ({
        id: t.id,
        target: (t.target.target as string | undefined) ?? null,
        targetId: (t.target.targetId as string | undefined) ?? null,
        targetName: t.orgName ?? t.teamName ?? null,
        tenantId: (t.details.tenantId as string | undefined) ?? null,
        connectedAt: t.createdAt.toISOString(),
      })),
    },
  };
}
