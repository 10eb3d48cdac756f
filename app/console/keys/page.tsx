import { Section } from '@/app/_ui/field';
import { Table } from '@/app/_ui/list';
import { Pager, pageParam } from '@/app/_ui/pager';
import { Badge, Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { PageHead } from '../_ui/page-head';
import { consoleSession } from '../_ui/session';
import { CreateAccountKey, KeyActions } from './key-forms';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'API keys · Console · Steward' };

const PER_PAGE = 50;
const level = (k: { organization: string | null; user: string | null }) => (k.user ? 'User' : k.organization ? 'Organization' : 'Account');

/** Every API key of the account (spec 1: account, organization and user keys); account keys are made here. */
export default async function ConsoleKeys({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const page = pageParam((await searchParams).page);
  const { api, canChange } = await consoleSession('/console/keys');
  const { apiKeys, total } = await api.console.access.keys({ page, perPage: PER_PAGE });
  return (
    <>
      <PageHead title="API keys" description="An account key reaches the whole account and may act as any of its users with X-User-Email. Only a hash is kept: a lost key cannot be shown again." />
      {canChange && (
        <Section id="new-key" title="Create an account key">
          <CreateAccountKey />
        </Section>
      )}
      <Section id="keys" title="Keys of the account" bare>
        {apiKeys.length === 0 ? (
          <Empty title="No API key" />
        ) : (
          <Table label="Keys of the account" head={['Name', 'Level', 'Access', 'Status', 'Last used', 'Created', ...(canChange ? ['Actions'] : [])]}>
            {apiKeys.map((k) => (
              <tr key={k.id}>
                <td className="[overflow-wrap:anywhere]">
                  <span className="font-medium">{k.label}</span> <code className="text-muted">{k.prefix}…</code>
                </td>
                <td>{level(k)}</td>
                <td>{k.scopes.length ? k.scopes.join(', ') : 'Full'}</td>
                <td>
                  <Badge tone={k.status === 'active' ? 'ok' : 'plain'}>{k.status === 'active' ? 'Active' : 'Revoked'}</Badge>
                  {k.expiresAt ? (
                    <span className="block text-xs text-muted">
                      until <Time value={k.expiresAt} />
                    </span>
                  ) : null}
                </td>
                <td className="whitespace-nowrap">{k.lastUsedAt ? <Time value={k.lastUsedAt} /> : 'Never'}</td>
                <td className="whitespace-nowrap">
                  <Time value={k.createdAt} />
                </td>
                {canChange && (
                  <td>
                    <KeyActions id={k.id} label={k.label} status={k.status} />
                  </td>
                )}
              </tr>
            ))}
          </Table>
        )}
        <Pager label="API keys" param="page" page={page} perPage={PER_PAGE} total={total} />
      </Section>
    </>
  );
}
