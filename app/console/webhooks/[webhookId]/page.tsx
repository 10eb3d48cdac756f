import { ArrowLeft } from 'lucide-react';
import Link from 'next/link';
import { readOrNotFound } from '@/app/_lib/server-caller';
import { cn } from '@/app/_ui/cn';
import { Section } from '@/app/_ui/field';
import { Table } from '@/app/_ui/list';
import { Pager, pageParam } from '@/app/_ui/pager';
import { Badge, Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { webhookEventTypes } from '@/db/schema/webhooks';
import { PageHead } from '../../_ui/page-head';
import { consoleSession } from '../../_ui/session';
import { Resend, WebhookSettings } from '../webhook-forms';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Webhook endpoint · Console · Steward' };

const PER_PAGE = 25;
const STATUS = { pending: ['Sending', 'accent'], succeeded: ['Delivered', 'ok'], failed: ['Failed', 'danger'], cancelled: ['Cancelled', 'plain'] } as const;
const FILTERS = [
  { value: '', label: 'All' },
  { value: 'failed', label: 'Failed' },
  { value: 'pending', label: 'Sending' },
  { value: 'succeeded', label: 'Delivered' },
] as const;

/** One endpoint: its settings, and its delivery log with each attempt's outcome and payload, and a resend. */
export default async function ConsoleWebhook({ params, searchParams }: { params: Promise<{ webhookId: string }>; searchParams: Promise<Record<string, string | undefined>> }) {
  const { webhookId } = await params;
  const q = await searchParams;
  const page = pageParam(q.page);
  const status = (['pending', 'succeeded', 'failed', 'cancelled'] as const).find((x) => x === q.status);
  const { api, canChange } = await consoleSession(`/console/webhooks/${webhookId}`);
  const { webhook } = await readOrNotFound(api.console.webhooks.get({ webhookId }));
  const log = await api.console.webhooks.deliveries({ webhookId, query: { page, perPage: PER_PAGE, ...(status ? { status } : {}) } });
  return (
    <>
      <Link href="/console/webhooks" className="mb-2 inline-flex min-h-11 items-center gap-1.5 text-sm sm:min-h-8 [&_svg]:size-4">
        <ArrowLeft aria-hidden="true" />
        All endpoints
      </Link>
      <PageHead
        title={webhook.description || webhook.url}
        description={
          <>
            <Badge tone={webhook.status === 'enabled' ? 'ok' : 'danger'}>{webhook.status === 'enabled' ? 'On' : 'Off'}</Badge> <code className="[overflow-wrap:anywhere]">{webhook.url}</code>
            {webhook.disabledReason && <span className="block">{webhook.disabledReason}</span>}
          </>
        }
      />
      {canChange && (
        <Section id="settings" title="Settings">
          <WebhookSettings hook={webhook} eventTypes={[...webhookEventTypes]} />
        </Section>
      )}
      <Section id="deliveries" title="Delivery log" bare>
        <nav aria-label="Deliveries to show" className="mb-3">
          <ul className="flex flex-wrap gap-2">
            {FILTERS.map((f) => {
              const on = (status ?? '') === f.value;
              return (
                <li key={f.value}>
                  <Link
                    href={f.value ? `?status=${f.value}` : '?'}
                    aria-current={on ? 'page' : undefined}
                    className={cn('inline-flex min-h-11 items-center rounded-full border border-border px-3 text-sm text-fg no-underline sm:min-h-8', on && 'border-accent bg-accent-soft font-semibold text-accent')}
                  >
                    {f.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        {log.deliveries.length === 0 ? (
          <Empty title="No delivery">Events the endpoint subscribes to appear here as they are sent.</Empty>
        ) : (
          <Table label="Delivery log" head={['Event', 'Outcome', 'Attempts', 'Created', ...(canChange ? ['Actions'] : [])]}>
            {log.deliveries.map((d) => (
              <tr key={d.id}>
                <td className="[overflow-wrap:anywhere]">
                  <code>{d.eventType}</code>
                  <details className="mt-1">
                    <summary className="cursor-pointer text-sm text-muted">
                      Payload<span className="sr-only"> of {d.id}</span>
                    </summary>
                    <pre className="mt-1 max-h-64 overflow-auto rounded-md bg-surface p-2 text-xs whitespace-pre-wrap">{JSON.stringify(d.payload, null, 2)}</pre>
                    <p className="text-xs text-muted">webhook-id {d.id}</p>
                  </details>
                </td>
                <td>
                  <Badge tone={STATUS[d.status][1]}>{STATUS[d.status][0]}</Badge>
                  {d.lastStatusCode !== null || d.lastError ? <span className="block text-xs text-muted">{d.lastError ?? `HTTP ${d.lastStatusCode}`}</span> : null}
                  {d.nextAttemptAt ? (
                    <span className="block text-xs text-muted">
                      next try <Time value={d.nextAttemptAt} />
                    </span>
                  ) : null}
                </td>
                <td className="tabular-nums">{d.attempts}</td>
                <td className="whitespace-nowrap">
                  <Time value={d.createdAt} />
                </td>
                {canChange && <td>{d.status !== 'pending' && webhook.status === 'enabled' ? <Resend webhookId={webhook.id} deliveryId={d.id} eventType={d.eventType} /> : '—'}</td>}
              </tr>
            ))}
          </Table>
        )}
        <Pager label="Deliveries" param="page" page={page} perPage={PER_PAGE} total={log.total} />
      </Section>
    </>
  );
}
