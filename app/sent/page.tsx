import { Send } from 'lucide-react';
import { LiveRefresh } from '@/app/_lib/live';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { HostedFrame } from '@/app/_ui/layout';
import { Empty } from '@/app/_ui/states';
import ui from '@/app/_ui/ui.module.css';
import { SentCart } from './sent-cart';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Sent · Steward' };

/** What the assistants released, newest first: each action's snapshot, and undo while its window is open. */
export default async function Sent() {
  const { api, me } = await requireSignedIn('/sent');
  const { carts } = await api.sent.list({ limit: 30 });
  const snapshots = await Promise.all(carts.map((c) => api.sent.snapshots({ cartId: c.id })));
  return (
    <HostedFrame me={me} title="Sent" width="wide" description="What your assistants sent for you. Something that goes at once waits a few seconds first: undo it here before it leaves.">
      <LiveRefresh topics={['sent']} />
      {carts.length === 0 ? (
        <Empty title="Nothing was sent yet." icon={Send} />
      ) : (
        <ul className={ui.list} aria-label="Sent by your assistants">
          {carts.map((c, i) => (
            <li key={c.id} className={ui.item}>
              <SentCart cart={c} initial={snapshots[i].snapshots} />
            </li>
          ))}
        </ul>
      )}
    </HostedFrame>
  );
}
