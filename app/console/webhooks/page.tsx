import Link from 'next/link';
import { Section } from '@/app/_ui/field';
import { Table } from '@/app/_ui/list';
import { Pager, pageParam } from '@/app/_ui/pager';
import { Badge, Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { webhookEventTypes } from '@/db/schema/webhooks';
import { PageHead } from '../_ui/page-head';
import { consoleSession } from '../_ui/session';
import { CreateWebhook } from './webhook-forms';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Webhooks · Console · Steward' };

const PER_PAGE = 50;

/** The account's webhook endpoints (spec 4, Outbound events): each opens on its delivery log. */
export default async function ConsoleWebhooks({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const page = pageParam((await searchParams).page);
  const { api, canChange } = await consoleSession('/console/webhooks');
  const { webhooks, total } = await api.console.webhooks.list({ page, perPage: PER_PAGE });
  return (
    <>
      <PageHead title="Webhooks" description="Steward posts signed events (Standard Webhooks) to these endpoints, retries failures with backoff, and turns off an endpoint that keeps failing." />
      {canChange && (
        <Section id="new-webhook" title="Add an endpoint">
          <CreateWebhook eventTypes={[...webhookEventTypes]} />
        </Section>
      )}
      <Section id="webhooks" title="Endpoints" bare>
        {webhooks.length === 0 ? (
          <Empty title="No endpoint" />
        ) : (
          <Table label="Endpoints" head={['Endpoint', 'Events', 'Status', 'Added']}>
            {webhooks.map((h) => (
              <tr key={h.id}>
                <td className="[overflow-wrap:anywhere]">
                  <Link href={`/console/webhooks/${h.id}`}>{h.description || h.url}</Link>
                  {h.description ? <span className="block text-xs text-muted">{h.url}</span> : null}
                </td>
                <td className="[overflow-wrap:anywhere]">{h.events.length ? h.events.join(', ') : 'Every event (but audit.event)'}</td>
                <td>
                  <Badge tone={h.status === 'enabled' ? 'ok' : 'danger'}>{h.status === 'enabled' ? 'On' : 'Off'}</Badge>
                  {h.disabledReason ? <span className="block text-xs text-muted">{h.disabledReason}</span> : null}
                </td>
                <td className="whitespace-nowrap">
                  <Time value={h.createdAt} />
                </td>
              </tr>
            ))}
          </Table>
        )}
        <Pager label="Endpoints" param="page" page={page} perPage={PER_PAGE} total={total} />
      </Section>
    </>
  );
}
