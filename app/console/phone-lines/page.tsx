import Link from 'next/link';
import { Table } from '@/app/_ui/list';
import { Badge, Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { PageHead } from '../_ui/page-head';
import { consoleSession } from '../_ui/session';
import { RequestActions } from './line-forms';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Phone lines · Console · Steward' };

const CHANNEL = { sms: 'SMS', whatsapp: 'WhatsApp', imessage: 'iMessage', voice: 'Calls' } as const;
const STATUS = { pending: ['Waiting', 'warn'], fulfilled: ['Fulfilled', 'ok'], dismissed: ['Dismissed', 'plain'] } as const;

/** Users' requests for a number for their assistant (spec 1, Phone lines): fulfil with a number, or dismiss with a reason they see. */
export default async function ConsolePhoneLines({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const showAll = (await searchParams).show === 'all';
  const { api, canChange } = await consoleSession('/console/phone-lines');
  const { requests } = await api.console.channels.phoneLines(showAll ? {} : { status: 'pending' });
  return (
    <>
      <PageHead
        title="Phone lines"
        description={
          showAll ? (
            <>
              Every request, waiting ones first. <Link href="/console/phone-lines">Only those waiting</Link>
            </>
          ) : (
            <>
              Requests waiting for a number. <Link href="/console/phone-lines?show=all">Every request</Link>
            </>
          )
        }
      />
      {requests.length === 0 ? (
        <Empty title={showAll ? 'No phone-line request yet' : 'No request is waiting'} />
      ) : (
        <Table label="Phone-line requests" head={['Asked', 'By', 'For', 'Channels', 'Notes', 'Status', ...(canChange ? ['Actions'] : [])]}>
          {requests.map((r) => {
            const asked = (Object.keys(CHANNEL) as Array<keyof typeof CHANNEL>).filter((ch) => r.requestedChannels[ch]);
            return (
              <tr key={r.id}>
                <td className="whitespace-nowrap">
                  <Time value={r.createdAt} />
                </td>
                <td className="[overflow-wrap:anywhere]">
                  {r.user.name ?? r.user.email}
                  {r.user.name ? <span className="block text-xs text-muted">{r.user.email}</span> : null}
                </td>
                <td>{r.assistantName ?? 'Their assistant'}</td>
                <td>{asked.length ? asked.map((ch) => CHANNEL[ch]).join(', ') : 'Any'}</td>
                <td className="[overflow-wrap:anywhere]">{r.notes || '—'}</td>
                <td>
                  <Badge tone={STATUS[r.status][1]}>{STATUS[r.status][0]}</Badge>
                  {r.number ? <span className="block text-xs">{r.number}</span> : null}
                  {r.status === 'dismissed' && 'dismissalReason' in r && r.dismissalReason ? <span className="block text-xs text-muted">{r.dismissalReason}</span> : null}
                </td>
                {canChange && <td>{r.status === 'pending' ? <RequestActions id={r.id} who={r.user.email} asked={asked} /> : '—'}</td>}
              </tr>
            );
          })}
        </Table>
      )}
    </>
  );
}
