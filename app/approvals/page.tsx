import { CheckCheck } from 'lucide-react';
import Link from 'next/link';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { LiveRefresh } from '@/app/_lib/live';
import { HostedFrame } from '@/app/_ui/layout';
import { Empty } from '@/app/_ui/states';
import { ApprovalsList } from './approvals-list';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Approvals · Steward' };

/**
 * What your assistants staged and wait on you for, each shown exactly as it will be sent, the one
 * whose window ends first on top. The approval email links here; it updates itself as carts arrive.
 */
export default async function Approvals() {
  const { api, me } = await requireSignedIn('/approvals');
  const { carts } = await api.approvals.list({});
  const ordered = [...carts].sort((a, b) => (a.status === 'time_boxed' ? 0 : 1) - (b.status === 'time_boxed' ? 0 : 1) || (a.timeBoxedExpiresAt ?? a.createdAt).localeCompare(b.timeBoxedExpiresAt ?? b.createdAt));
  return (
    <HostedFrame me={me} title="Approvals" description="Nothing here is sent until you approve it. A time-boxed one goes when its window ends unless you act.">
      <LiveRefresh topics={['sent', 'needs']} />
      <ApprovalsList carts={ordered}>
        <Empty title="Nothing is waiting for your approval" icon={CheckCheck}>
          <p>
            When your assistant wants to send something on your behalf, it appears here and in your <Link href="/inbox">inbox</Link>.
          </p>
        </Empty>
      </ApprovalsList>
    </HostedFrame>
  );
}
