import { Section } from '@/app/_ui/field';
import { Fields, Table } from '@/app/_ui/list';
import { Badge, Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { PageHead } from '../_ui/page-head';
import { consoleSession } from '../_ui/session';
import { CreateMarketplaceApp } from './slack-forms';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Slack and Teams · Console · Steward' };

/** Every assistant's Slack app, the account's marketplace app, and the Teams bot's connections (spec 1 and 5). */
export default async function ConsoleChatApps() {
  const { api, canChange } = await consoleSession('/console/chat-apps');
  const { slack, teams } = await api.console.channels.apps();
  return (
    <>
      <PageHead title="Slack and Teams" description="Each assistant is its own Slack app; the Teams bot is the deployment’s, connected per tenant by organization and team admins." />
      <Section id="slack" title="Slack apps" bare>
        <Fields
          className="mb-4"
          rows={[
            ['Marketplace credentials', slack.deploymentCredentials ? 'Set by the deployment (SLACK_CLIENT_ID and its secrets)' : 'Not set: the marketplace app waits for SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_SIGNING_SECRET'],
            ['Linked Slack identities', slack.linkedIdentities],
          ]}
        />
        {slack.apps.length === 0 ? (
          <Empty title="No Slack app yet">People create their own workspace apps from their assistant’s settings; the account’s marketplace app is created here.</Empty>
        ) : (
          <Table label="Slack apps" head={['Bot', 'Assistant', 'Kind', 'Status', 'Workspaces', 'Created']}>
            {slack.apps.map((a) => (
              <tr key={a.id}>
                <td>{a.botDisplayName}</td>
                <td>{a.assistant.name ?? a.assistant.id}</td>
                <td>{a.kind === 'marketplace' ? 'Marketplace (the account’s)' : `Workspace (${a.owner?.email ?? 'a user'})`}</td>
                <td>
                  <Badge tone={a.status === 'active' ? 'ok' : 'warn'}>{a.status === 'active' ? 'Active' : 'Waiting for credentials'}</Badge>
                </td>
                <td>{a.installations.length ? a.installations.map((i) => i.teamId).join(', ') : 'Not installed'}</td>
                <td className="whitespace-nowrap">
                  <Time value={a.createdAt} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Section>
      {canChange && (
        <Section id="marketplace" title="The account’s marketplace app" description="For an account-wide assistant; Slack’s “create from manifest” link follows.">
          <CreateMarketplaceApp assistants={slack.accountAssistants} />
        </Section>
      )}
      <Section id="teams" title="Microsoft Teams" bare>
        <Fields
          className="mb-4"
          rows={[
            ['Teams bot', teams.botConfigured ? 'Configured by the deployment (TEAMS_CLIENT_ID)' : 'Off: the deployment sets no TEAMS_CLIENT_ID and TEAMS_CLIENT_SECRET'],
            ['Linked Teams identities', teams.linkedIdentities],
          ]}
        />
        {teams.connections.length === 0 ? (
          <Empty title="No tenant connected">Organization and team admins connect their Microsoft tenant from their settings.</Empty>
        ) : (
          <Table label="Connected tenants" head={['Connected by', 'Tenant', 'When']}>
            {teams.connections.map((t) => (
              <tr key={t.id}>
                <td>
                  {t.targetName ?? t.targetId ?? '—'} {t.target ? <span className="text-muted">({t.target})</span> : null}
                </td>
                <td>
                  <code>{t.tenantId ?? 'unknown'}</code>
                </td>
                <td className="whitespace-nowrap">
                  <Time value={t.connectedAt} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Section>
    </>
  );
}
