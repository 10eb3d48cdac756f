import { requireSignedIn } from '@/app/_lib/server-caller';
import { HostedFrame } from '@/app/_ui/layout';
import { CartCard } from './cart-card';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Approvals · Steward' };

/**
 * What your assistants staged and wait on you for: carts pending approval and time-boxed ones,
 * newest first, each shown exactly as it will be sent. The approval email links here.
 */
export default async function Approvals() {
  const { api, me } = await requireSignedIn('/approvals');
  const { carts } = await api.approvals.list({});
  return (
    <HostedFrame me={me} title="Approvals">
      <p>
        Your assistants send nothing listed here until you approve it (a time-boxed one goes when its window ends unless you act). Edit the text if you want: what you approve is
        exactly what is sent.
      </p>
      {carts.length ? (
        carts.map((c) => <CartCard key={c.id} initial={c} />)
      ) : (
        <p>Nothing is waiting for your approval.</p>
      )}
      <p>
        <a href="/approvals">Check for new approvals</a>
      </p>
    </HostedFrame>
  );
}
